-- What every layer may use: a leaf, it requires nothing of the plugin but notify.lua.
-- A command's failure guard is chat/guard.lua (it needs the chats and the bridge).
local M = {}

local note = require("acpchat.notify")
M.notify, M.one_line = note.notify, note.one_line

return M
