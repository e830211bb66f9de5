-- The pieces every transcript text builder uses (text.lua, the features/ modules): lines split on
-- newlines, and a builder of lines with highlight segments {row, col_start, col_end, group}
-- (col_end -1: to the end of the line). Pure (config is read, never written).
local config = require("acpchat.config")

local M = {}

--- `s` split on newlines (nil: one empty line).
---@param s string?
---@return string[]
function M.split(s)
  return vim.split(s or "", "\n", { plain = true })
end

--- `extra`: more fields for the caller's own bookkeeping (text.lua's row -> media clip).
---@param extra table?
---@return acpchat.Builder
function M.builder(extra)
  local b = extra or {}
  b.lines, b.hls = {}, {}
  function b.add(line, group)
    b.lines[#b.lines + 1] = line
    if group then
      b.hls[#b.hls + 1] = { #b.lines - 1, 0, -1, group }
    end
    return #b.lines - 1
  end
  function b.hl(row, cs, ce, group)
    b.hls[#b.hls + 1] = { row, cs, ce, group }
  end
  return b
end

--- The key mapped for a keymaps option (for hints such as "za: show all"), or nil.
---@param name string a key of config.options.keymaps
---@return string?
function M.key(name)
  local keys = config.options and config.options.keymaps
  local k = keys and keys[name]
  return type(k) == "string" and k ~= "" and k or nil
end

return M
