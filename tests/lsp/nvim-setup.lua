-- SPDX-License-Identifier: MIT
-- The documented Neovim set-up (docs/editors.md, loaded as init.lua by nvim-e2e.sh): with nothing
-- but it and Neovim's own filetype detection, a YAML config, a launch script, a Python recipe and
-- a CUDA source each get cglint attached and the finding the file holds. Prints
-- "lsp-nvim: setup ok" and quits 0, or quits 1 with a reason.
local dir = os.getenv('CGLINT_E2E_KINDS')
local WAIT = 30000      -- a guard against a hung server, not a timing

local function main()
  assert(dir, 'CGLINT_E2E_KINDS must be set')
  for line in io.lines(dir .. '/expect') do
    local name, code = line:match('^(%S+) (%S+)$')
    vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/' .. name))
    local buf = vim.api.nvim_get_current_buf()
    local function attached()   -- a client is listed once it has initialized
      for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
        if c.name == 'cglint' then return true end
      end
      return false
    end
    if not vim.wait(WAIT, attached, 20) then
      error(string.format('%s (filetype %s): cglint is not attached', name, vim.bo[buf].filetype), 0)
    end
    local ok = vim.wait(WAIT, function()
      for _, d in ipairs(vim.diagnostic.get(buf)) do
        if d.code == code then return true end
      end
      return false
    end, 20)
    if not ok then
      error(string.format('%s (filetype %s): no %s among %s', name, vim.bo[buf].filetype, code,
                          vim.inspect(vim.diagnostic.get(buf))), 0)
    end
    io.stdout:write(string.format('lsp-nvim: setup: %s (%s): %s\n', name, vim.bo[buf].filetype, code))
  end
end

local ok, err = pcall(main)
if ok then
  io.stdout:write('lsp-nvim: setup ok\n')
  io.stdout:flush()
  vim.cmd('qall!')
else
  io.stderr:write('lsp-nvim: setup: ' .. tostring(err) .. '\n')
  io.stderr:flush()
  vim.cmd('cquit 1')
end
