-- Every module under lua/acpchat/ loads on its own in a fresh Neovim (no chat, no Node host),
-- and every require of an acpchat module anywhere in the repository names a file that exists:
-- the check a moved or renamed module needs, on each Neovim under test.
local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h")

--- lua/acpchat/ask/init.lua -> acpchat.ask, lua/acpchat/host/bridge.lua -> acpchat.host.bridge
local function module_of(path)
  return (path:sub(#root + 6):gsub("/init%.lua$", ""):gsub("%.lua$", ""):gsub("/", "."))
end

local files = vim.fs.find(function(name)
  return name:match("%.lua$") ~= nil
end, { path = root .. "/lua/acpchat", type = "file", limit = math.huge })
table.sort(files)

local function exists(mod)
  local base = root .. "/lua/" .. mod:gsub("%.", "/")
  return vim.uv.fs_stat(base .. ".lua") ~= nil or vim.uv.fs_stat(base .. "/init.lua") ~= nil
end

describe("every module loads", function()
  it("finds the modules", function()
    truthy(#files > 40)
  end)
  for _, f in ipairs(files) do
    local mod = module_of(f)
    -- A ---@meta file declares types for the language server; it is never required.
    local meta = (io.open(f):read("*l") or ""):match("^%-%-%-@meta") ~= nil
    if not meta then
      it(mod, function()
        local ok, m = pcall(require, mod)
        truthy(ok, m)
        eq("table", type(m))
      end)
    end
  end
end)

describe("every require resolves", function()
  it("names an existing module", function()
    local dirs = { "lua", "plugin", "ftplugin", "scripts", "test", "bench", "src" }
    local missing, seen = {}, 0
    for _, d in ipairs(dirs) do
      for name, kind in vim.fs.dir(root .. "/" .. d, { depth = 6 }) do
        local path = root .. "/" .. d .. "/" .. name
        if kind == "file" and (name:match("%.lua$") or name:match("%.ts$") or name:match("%.mjs$")) then
          local src = table.concat(vim.fn.readfile(path), "\n")
          for mod in src:gmatch("require%s*%(?%s*[\"'](acpchat[%w_.]*)[\"']") do
            seen = seen + 1
            if not exists(mod) then
              missing[#missing + 1] = d .. "/" .. name .. ": " .. mod
            end
          end
        end
      end
    end
    truthy(seen > 100)
    eq({}, missing)
  end)
end)
