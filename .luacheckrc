-- luacheck (Debian's lua-check): undefined and unused names, shadowing, unreachable code.
-- Line length is StyLua's job (stylua.toml).
std = "luajit"
globals = { "vim" }
max_line_length = false
-- Callbacks keep the arguments Neovim passes, named, even when unused.
unused_args = false
-- An empty branch with a comment says on purpose that a case does nothing.
ignore = { "542" }
files["test/lua"] = { read_globals = { "describe", "it", "before_each", "eq", "truthy", "matches", "raises", "reload" } }
files["test/lua/harness.lua"] = { globals = { "describe", "it", "before_each", "eq", "truthy", "matches", "raises", "reload" } }
