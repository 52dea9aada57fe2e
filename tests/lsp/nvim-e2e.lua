-- SPDX-License-Identifier: MIT
-- `cglint lsp` in a real editor: Neovim (0.7 API) starts the server, opens a YAML file with a
-- known CG101, waits for the diagnostic, asks for hover and code actions, applies the
-- suppression and waits for the diagnostic to go. Then a broken project config (cfg/.cglint.yaml,
-- a rule id mistyped): the document in cfg/ must be told so and the config must get its problem
-- before it is opened; opened and fixed in its buffer, both go and the finding comes back. Last
-- it stops the server and checks it exited 0.
-- Run by nvim-e2e.sh; it prints "lsp-nvim: ok" and quits 0, or quits 1 with a reason.

local bin = os.getenv('CGLINT_E2E_BIN')
local file = os.getenv('CGLINT_E2E_FILE')
local WAIT = 30000      -- a guard against a hung server, not a timing

local function check(cond, fmt, ...)
  if not cond then
    error(string.format(fmt, ...), 0)
  end
end

local function main()
  check(bin and file, 'CGLINT_E2E_BIN and CGLINT_E2E_FILE must be set')
  local exit_code
  local client_id = vim.lsp.start_client({
    name = 'cglint',
    cmd = { bin, 'lsp' },
    root_dir = vim.fn.fnamemodify(file, ':h'),
    on_exit = function(code) exit_code = code end,
  })
  check(client_id, 'start_client failed')
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  check(vim.lsp.buf_attach_client(buf, client_id), 'buf_attach_client failed')

  -- the diagnostic: line 5 (0-based 4), the key te_rng_tracker
  check(vim.wait(WAIT, function() return #vim.diagnostic.get(buf) > 0 end, 20), 'no diagnostics arrived')
  local diags = vim.diagnostic.get(buf)
  check(#diags == 1, 'expected 1 diagnostic, got %d', #diags)
  local d = diags[1]
  check(d.code == 'CG101', 'code %s', tostring(d.code))
  check(d.lnum == 4 and d.col == 2 and d.end_lnum == 4 and d.end_col == 16,
        'range %d:%d-%d:%d', d.lnum, d.col, d.end_lnum, d.end_col)
  check(d.severity == vim.diagnostic.severity.ERROR, 'severity %s', tostring(d.severity))
  check(d.source == 'cglint', 'source %s', tostring(d.source))
  check(d.message:find("Transformer engine's RNG tracker is required", 1, true), 'message %s', d.message)

  local uri = vim.uri_from_bufnr(buf)
  local function request(method, params)
    local res, err = vim.lsp.buf_request_sync(buf, method, params, WAIT)
    check(res and res[client_id], '%s: no answer (%s)', method, tostring(err))
    check(not res[client_id].err, '%s: error %s', method, vim.inspect(res[client_id].err))
    return res[client_id].result
  end

  local hover = request('textDocument/hover', { textDocument = { uri = uri }, position = { line = 4, character = 5 } })
  check(hover and hover.contents and hover.contents.kind == 'markdown', 'hover: %s', vim.inspect(hover))
  local text = hover.contents.value
  check(text:find('**CG101** te-rng-tracker-required (error)', 1, true), 'hover title: %s', text)
  check(text:find('Captured graphs replay the same random-number state', 1, true), 'hover doc: %s', text)
  local empty = request('textDocument/hover', { textDocument = { uri = uri }, position = { line = 0, character = 0 } })
  check(empty == nil, 'hover off the finding: %s', vim.inspect(empty))

  local lsp_diags = {}
  for _, x in ipairs(diags) do
    table.insert(lsp_diags, x.user_data.lsp)
  end
  local actions = request('textDocument/codeAction', {
    textDocument = { uri = uri },
    range = { start = { line = 4, character = 2 }, ['end'] = { line = 4, character = 2 } },
    context = { diagnostics = lsp_diags },
  })
  local suppress
  for _, a in ipairs(actions or {}) do
    if a.title == 'Suppress CG101 on this line' then suppress = a end
  end
  check(suppress and suppress.kind == 'quickfix' and suppress.edit, 'no suppression action: %s', vim.inspect(actions))

  -- apply it as the editor does; the change goes back to the server, which clears the finding
  vim.lsp.util.apply_workspace_edit(suppress.edit, 'utf-16')
  local line = vim.api.nvim_buf_get_lines(buf, 4, 5, true)[1]
  check(line:find('cglint: disable=CG101', 1, true), 'line 5 after the edit: %s', line)
  check(vim.wait(WAIT, function() return #vim.diagnostic.get(buf) == 0 end, 20),
        'the diagnostic stayed after the suppression: %s', vim.inspect(vim.diagnostic.get(buf)))

  -- a broken project config: named on the document, its problem published on the config file
  local dir = vim.fn.fnamemodify(file, ':h') .. '/cfg'
  vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/recipe.yaml'))
  local doc = vim.api.nvim_get_current_buf()
  check(vim.lsp.buf_attach_client(doc, client_id), 'buf_attach_client failed (cfg/recipe.yaml)')
  local function codes(b)
    local out = {}
    for _, x in ipairs(vim.diagnostic.get(b)) do
      table.insert(out, tostring(x.code))
    end
    table.sort(out)
    return table.concat(out, ' ')
  end
  check(vim.wait(WAIT, function() return codes(doc) == 'CG915' end, 20),
        'cfg/recipe.yaml: expected the broken-config notice, got "%s"', codes(doc))
  local notice = vim.diagnostic.get(doc)[1]
  check(notice.lnum == 0 and notice.message:find('the project config cfg/.cglint.yaml has 1 problem', 1, true),
        'the notice: %s', vim.inspect(notice))
  local cfg = vim.uri_to_bufnr(vim.uri_from_fname(dir .. '/.cglint.yaml'))   -- not loaded yet
  check(vim.wait(WAIT, function() return codes(cfg) == 'CG915' end, 20),
        'no diagnostic on the config that is not open: "%s"', codes(cfg))
  local p = vim.diagnostic.get(cfg)[1]
  check(p.lnum == 0 and p.col == 9 and p.end_col == 14 and p.message:find("no rule matches 'CG1O1'", 1, true),
        'the config\'s problem: %s', vim.inspect(p))

  -- opened and fixed in its buffer (didOpen, didChange): the config clears, the finding is back
  vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/.cglint.yaml'))
  check(vim.api.nvim_get_current_buf() == cfg, 'the config opened in another buffer')
  check(vim.lsp.buf_attach_client(cfg, client_id), 'buf_attach_client failed (.cglint.yaml)')
  vim.api.nvim_buf_set_lines(cfg, 0, -1, true, { 'select: [CG1]' })
  check(vim.wait(WAIT, function() return codes(cfg) == '' and codes(doc) == 'CG101' end, 20),
        'after the fix: config "%s", document "%s"', codes(cfg), codes(doc))

  vim.lsp.stop_client(client_id)        -- shutdown, then exit
  check(vim.wait(WAIT, function() return exit_code ~= nil end, 20), 'the server did not exit')
  check(exit_code == 0, 'the server exited %s after shutdown and exit', tostring(exit_code))
end

local ok, err = pcall(main)
if ok then
  io.stdout:write('lsp-nvim: ok\n')
  io.stdout:flush()
  vim.cmd('qall!')
else
  io.stderr:write('lsp-nvim: ' .. tostring(err) .. '\n')
  io.stderr:flush()
  vim.cmd('cquit 1')
end
