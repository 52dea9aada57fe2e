;;; eglot-e2e.el --- `cglint lsp' end to end in Emacs eglot (Debian's elpa-eglot)  -*- lexical-binding: t -*-
;; SPDX-License-Identifier: MIT
;; Run by eglot-e2e.sh in emacs --batch. Opens CGLINT_E2E_FILE, starts `CGLINT_E2E_BIN lsp'
;; through eglot, waits for flymake to hold cglint's CG101. Then a broken project config
;; (cfg/.cglint.yaml beside it, a rule id with a typo): the document in cfg/ must be told so and
;; the config must get its problem, both while it is not open (eglot's list of project
;; diagnostics) and once it is; fixed in its buffer, both go; closed, the file on disk (broken)
;; applies again; fixed on disk, eglot's file watch (which the server asked for) makes it lint
;; again. Last it sends shutdown and exit as eglot does ("params": null) and requires the server
;; to answer and exit 0. Prints "lsp-eglot: ok" on success.
;; Debian's elpa-eglot and what it needs (project, xref, seq), ahead of Emacs's own copies
(dolist (dir (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*"))
  (add-to-list 'load-path dir))
(require 'eglot)
(require 'flymake)

(defun e2e-fail (fmt &rest args)
  (princ (format "lsp-eglot: FAIL: %s\n" (apply #'format fmt args)))
  (kill-emacs 1))

(define-derived-mode cglint-e2e-yaml-mode prog-mode "cglint-yaml")
;; YAML files visited later (the config and the document in cfg/) are eglot's at once
(add-to-list 'auto-mode-alist '("\\.ya?ml\\'" . cglint-e2e-yaml-mode))

(defun e2e-texts (buf)
  "The texts of flymake's diagnostics in BUF."
  (with-current-buffer buf
    (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))

(defun e2e-has (texts code)
  (seq-some (lambda (s) (string-match-p (regexp-quote code) s)) texts))

(defun e2e-wait (what bufs pred)
  "Wait up to 60 s for PRED, running flymake in BUFS (no idle timers in batch mode)."
  (let ((deadline (+ (float-time) 60)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05)
      (read-event nil nil 0.05)         ; handles file-notify's events, which eglot's watch needs
      (dolist (b bufs) (with-current-buffer b (flymake-start))))
    (unless (funcall pred)
      (e2e-fail "%s; flymake has %S" what (mapcar #'e2e-texts bufs)))))

(defun e2e-project-diags (file)
  "What eglot keeps for FILE, a file no buffer visits (its project diagnostics)."
  (cdr (assoc (expand-file-name file) flymake-list-only-diagnostics)))

(defun e2e-broken-config (root)
  "The broken cfg/.cglint.yaml under ROOT, from first sight to fixed on disk."
  (let* ((cfg (expand-file-name "cfg/.cglint.yaml" root))
         (doc (find-file-noselect (expand-file-name "cfg/recipe.yaml" root))))
    (unless (with-current-buffer doc eglot--managed-mode)
      (e2e-fail "eglot does not manage cfg/recipe.yaml"))
    (e2e-wait "the document was not told its config is broken" (list doc)
              (lambda () (e2e-has (e2e-texts doc) "[CG915]: the project config")))
    (e2e-wait "no diagnostics for the config that is not open" nil
              (lambda () (seq-some (lambda (d) (string-match-p "no rule matches 'CG1O1'"
                                                               (flymake-diagnostic-text d)))
                                   (e2e-project-diags cfg))))
    (let ((cbuf (find-file-noselect cfg)))
      (e2e-wait "no diagnostics in the config's own buffer" (list cbuf)
                (lambda () (e2e-has (e2e-texts cbuf) "no rule matches 'CG1O1'")))
      (with-current-buffer cbuf
        (erase-buffer)
        (insert "select: [CG1]\n")
        (eglot--signal-textDocument/didChange))
      (e2e-wait "the fixed buffer did not clear the config or lint the document again" (list cbuf doc)
                (lambda () (and (null (e2e-texts cbuf))
                                (e2e-has (e2e-texts doc) "CG101")
                                (not (e2e-has (e2e-texts doc) "CG915")))))
      (with-current-buffer cbuf (set-buffer-modified-p nil))
      (kill-buffer cbuf))               ; didClose: the file on disk, still broken, applies
    (e2e-wait "closing the config did not bring the file on disk back" (list doc)
              (lambda () (e2e-has (e2e-texts doc) "CG915")))
    (with-temp-file cfg (insert "select: [CG1]\n"))
    (e2e-wait "the config fixed on disk was not seen (workspace/didChangeWatchedFiles)" (list doc)
              (lambda () (and (e2e-has (e2e-texts doc) "CG101")
                              (not (e2e-has (e2e-texts doc) "CG915")))))
    (princ (format "lsp-eglot: broken config: notice, problems on the config, fixed in its buffer and on disk\n"))))

(let* ((bin (getenv "CGLINT_E2E_BIN"))
       (file (getenv "CGLINT_E2E_FILE"))
       (root (file-name-directory file))
       ;; one project, and so one server, for every file under the folder
       (project-find-functions (list (lambda (_dir) `(transient . ,root))))
       (eglot-sync-connect t)
       (buf (find-file-noselect file)))
  (with-current-buffer buf
    (eglot '(cglint-e2e-yaml-mode) `(transient . ,root) 'eglot-lsp-server
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
      (e2e-broken-config root)
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
