;;; eglot-e2e.el --- `cglint lsp' end to end in Emacs eglot (Debian's elpa-eglot)  -*- lexical-binding: t -*-
;; SPDX-License-Identifier: MIT
;; Run by eglot-e2e.sh in emacs --batch. Opens CGLINT_E2E_FILE, starts `CGLINT_E2E_BIN lsp'
;; through eglot, waits for flymake to hold cglint's CG101, then sends shutdown and exit as
;; eglot does ("params": null) and requires the server to answer and exit 0. Prints "lsp-eglot: ok" on success.
;; Debian's elpa-eglot and what it needs (project, xref, seq), ahead of Emacs's own copies
(dolist (dir (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*"))
  (add-to-list 'load-path dir))
(require 'eglot)
(require 'flymake)

(defun e2e-fail (fmt &rest args)
  (princ (format "lsp-eglot: FAIL: %s\n" (apply #'format fmt args)))
  (kill-emacs 1))

(define-derived-mode cglint-e2e-yaml-mode prog-mode "cglint-yaml")

(let* ((bin (getenv "CGLINT_E2E_BIN"))
       (file (getenv "CGLINT_E2E_FILE"))
       (eglot-sync-connect t)
       (buf (find-file-noselect file)))
  (with-current-buffer buf
    (cglint-e2e-yaml-mode)
    (eglot '(cglint-e2e-yaml-mode) `(transient . ,default-directory) 'eglot-lsp-server
           (list bin "lsp") "yaml")
    (let ((server (eglot-current-server))
          (deadline (+ (float-time) 60))
          diags)
      (unless server (e2e-fail "eglot did not start the server"))
      (unless (bound-and-true-p flymake-mode) (e2e-fail "eglot did not turn flymake on"))
      (while (and (not (setq diags (flymake-diagnostics))) (< (float-time) deadline))
        (accept-process-output nil 0.1)
        (flymake-start))                ; no idle timers in batch mode
      (unless diags (e2e-fail "no diagnostics in flymake within 60 s"))
      (let ((texts (mapcar #'flymake-diagnostic-text diags)))
        (unless (seq-some (lambda (s) (string-match-p "CG101" s)) texts)
          (e2e-fail "no CG101 among %S" texts))
        (princ (format "lsp-eglot: %d diagnostic(s): %S\n" (length texts) texts)))
      ;; what eglot-shutdown sends, but without its kill afterwards, so the status is the server's:
      ;; jsonrpc writes nil params as "params": null
      (let ((proc (jsonrpc--process server)))
        (condition-case err
            (jsonrpc-request server :shutdown nil :timeout 10)
          (error (e2e-fail "shutdown with params null was refused: %S" err)))
        (jsonrpc-notify server :exit nil)
        (let ((deadline (+ (float-time) 10)))
          (while (and (process-live-p proc) (< (float-time) deadline))
            (accept-process-output nil 0.1)))
        (unless (eq (process-status proc) 'exit)
          (e2e-fail "the server did not exit after shutdown and exit"))
        (unless (= (process-exit-status proc) 0)
          (e2e-fail "the server exited %d after shutdown and exit (params null)"
                    (process-exit-status proc)))))))
(princ "lsp-eglot: ok\n")
(kill-emacs 0)
