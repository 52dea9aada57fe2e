;;; eglot-setup.el --- the documented Emacs set-up, end to end  -*- lexical-binding: t -*-
;; SPDX-License-Identifier: MIT
;; Run by eglot-e2e.sh in emacs --batch after the documented init.el (docs/editors.md): visits a
;; YAML config, a launch script, a Python recipe and a CUDA source (CGLINT_E2E_KINDS/expect: file
;; and rule, one a line) as a user would, and requires each to be managed by eglot with cglint's
;; finding in flymake. Prints "lsp-eglot: setup ok" on success.
(require 'flymake)

(defun setup-fail (fmt &rest args)
  (princ (format "lsp-eglot: setup: FAIL: %s\n" (apply #'format fmt args)))
  (kill-emacs 1))

(let* ((dir (file-name-as-directory (getenv "CGLINT_E2E_KINDS")))
       (lines (with-temp-buffer
                (insert-file-contents (concat dir "expect"))
                (split-string (buffer-string) "\n" t))))
  (dolist (line lines)
    (let* ((parts (split-string line " "))
           (name (car parts))
           (code (cadr parts))
           (buf (find-file-noselect (concat dir name)))
           (deadline (+ (float-time) 60))
           found)
      (with-current-buffer buf
        ;; eglot-ensure connects from post-command-hook, after the command that visited the file;
        ;; batch mode runs no command loop, so run the hook as it would
        (run-hooks 'post-command-hook)
        (unless eglot--managed-mode
          (setup-fail "%s (%s): eglot does not manage it" name major-mode))
        (while (and (not found) (< (float-time) deadline))
          (accept-process-output nil 0.05)
          (flymake-start)               ; no idle timers in batch mode
          (setq found (seq-some (lambda (d) (string-match-p (regexp-quote code) (flymake-diagnostic-text d)))
                                (flymake-diagnostics))))
        (unless found
          (setup-fail "%s (%s): no %s among %S" name major-mode code
                      (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))
        (princ (format "lsp-eglot: setup: %s (%s): %s\n" name major-mode code))))))
(princ "lsp-eglot: setup ok\n")
(kill-emacs 0)
