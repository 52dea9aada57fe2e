/* SPDX-License-Identifier: MIT */
/* sh: the launch-script reader (fe_sh): words, positions, variables, env, CG908, bounds. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"
#include "front/fe_sh.h"

static struct arena *a;
static struct pack *p;
static struct diag_list d;
static struct sh_script sc;

static void setup(void)
{
	a = arena_new();
	p = pack_new();
	pack_load_builtin(p);
	diag_init(&d, a, &p->lookup, NULL);
	sc = (struct sh_script){0};
}

static void teardown(void)
{
	diag_release(&d);
	pack_free(p);
	arena_free(a);
}

static int parse_n(const char *text, size_t len)
{
	return fe_sh_parse(a, &d, "run.sh", text, len, &sc);
}

/* Parse text that must read cleanly. */
static void parse_ok(const char *text)
{
	cr_assert_eq(parse_n(text, strlen(text)), 0, "did not read: %s", text);
	cr_assert_eq(d.n, 0, "unexpected diagnostic: %s", d.n ? d.items[0].message : "");
}

static const struct sh_cmd *cmd(size_t i)
{
	cr_assert_lt(i, sc.n_cmds, "no command %zu (there are %zu)", i, sc.n_cmds);
	return &sc.cmds[i];
}

/* The words of command i joined with '|', unresolved ones marked with '?'. */
static const char *words(size_t i)
{
	const struct sh_cmd *c = cmd(i);
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t k = 0; k < c->argc; k++)
		sbuf_printf(&sb, "%s%s%s", k ? "|" : "", c->argv[k].text, c->argv[k].unresolved ? "?" : "");
	char *r = arena_strdup(a, sb.buf);
	sbuf_release(&sb);
	return r;
}

/* The env of command i as NAME=value joined with ' ' (a NULL value shows as '?'). */
static const char *env(size_t i)
{
	const struct sh_cmd *c = cmd(i);
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t k = 0; k < c->n_env; k++)
		sbuf_printf(&sb, "%s%s=%s", k ? " " : "", c->env[k].name, c->env[k].value ? c->env[k].value : "?");
	char *r = arena_strdup(a, sb.buf);
	sbuf_release(&sb);
	return r;
}

static const struct sh_word *word_at(size_t i, size_t k)
{
	const struct sh_cmd *c = cmd(i);
	cr_assert_lt(k, c->argc, "command %zu has no word %zu", i, k);
	return &c->argv[k];
}

#define expect_pos(w, l, c)                                                                           \
	do {                                                                                          \
		const struct sh_word *w_ = (w);                                                       \
		cr_expect_eq(w_->loc.line, (l), "'%s': line %u, expected %u", w_->text, w_->loc.line, \
			     (unsigned)(l));                                                          \
		cr_expect_eq(w_->loc.col, (c), "'%s': column %u, expected %u", w_->text, w_->loc.col, \
			     (unsigned)(c));                                                          \
	} while (0)

/* Parse text that must stop with one CG908 at line:col. */
static void expect_cg908(const char *text, unsigned line, unsigned col)
{
	cr_assert_eq(parse_n(text, strlen(text)), -1, "read without complaint: %s", text);
	cr_assert_eq(d.n, 1, "%zu diagnostics for: %s", d.n, text);
	cr_expect_str_eq(d.items[0].rule->head.id, "CG908");
	cr_expect_eq(d.items[0].loc.line, line, "%s: line %u, expected %u", text, d.items[0].loc.line, line);
	cr_expect_eq(d.items[0].loc.col, col, "%s: column %u, expected %u", text, d.items[0].loc.col, col);
	cr_expect_str_eq(d.items[0].loc.path, "run.sh");
}

TestSuite(sh, .init = setup, .fini = teardown);

Test(sh, the_launch_script_of_the_design)
{
	parse_ok("#!/bin/bash\n"
		 "#SBATCH --nodes=2\n"
		 "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
		 "NCCL_GRAPH_REGISTER=0\n"
		 "CG_ARGS=\"--cuda-graph-impl local --cuda-graph-scope full_iteration\"\n"
		 "MODEL_ARGS=(\n"
		 "    --num-layers 32          # comment inside an array\n"
		 "    --hidden-size 4096\n"
		 ")\n"
		 "MODEL_ARGS+=(--te-rng-tracker)\n"
		 "TP=${TP:-2}\n"
		 "torchrun --nproc-per-node 8 pretrain_gpt.py \\\n"
		 "    ${MODEL_ARGS[@]} \"${MODEL_ARGS[@]}\" $CG_ARGS \\\n"
		 "    --tensor-model-parallel-size $TP \\\n"
		 "    --data-path \"$DATA\" --extra $(date) ${@}\n"
		 "CUDA_DEVICE_MAX_CONNECTIONS=1 python pretrain_gpt.py --foo=bar\n");
	cr_assert_eq(sc.n_cmds, 2);
	cr_expect_str_eq(words(0), "torchrun|--nproc-per-node|8|pretrain_gpt.py"
				   "|--num-layers|32|--hidden-size|4096|--te-rng-tracker"
				   "|--num-layers|32|--hidden-size|4096|--te-rng-tracker"
				   "|--cuda-graph-impl|local|--cuda-graph-scope|full_iteration"
				   "|--tensor-model-parallel-size|2|--data-path|?|--extra|?|?");
	expect_pos(word_at(0, 0), 12, 1);
	expect_pos(word_at(0, 4), 7, 5);       /* --num-layers, unquoted expansion */
	expect_pos(word_at(0, 9), 7, 5);       /* and quoted */
	expect_pos(word_at(0, 8), 10, 14);     /* --te-rng-tracker, from += */
	expect_pos(word_at(0, 14), 5, 10);     /* --cuda-graph-impl inside the quotes */
	expect_pos(word_at(0, 15), 5, 28);
	expect_pos(word_at(0, 17), 5, 53);
	expect_pos(word_at(0, 18), 14, 5);
	expect_pos(word_at(0, 19), 11, 10);    /* 2, the default in ${TP:-2} */
	expect_pos(word_at(0, 21), 15, 18);    /* "$DATA": where the $ is */
	expect_pos(word_at(0, 22), 15, 25);
	expect_pos(word_at(0, 23), 15, 33);    /* $(date) */
	cr_expect_eq(cmd(0)->loc.line, 12);
	cr_expect_str_eq(env(0), "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", "not exported: not in env");
	cr_expect_eq(cmd(0)->env[0].loc.line, 3);
	cr_expect_eq(cmd(0)->env[0].loc.col, 32);
	cr_expect_str_eq(words(1), "python|pretrain_gpt.py|--foo=bar");
	cr_expect_str_eq(env(1), "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True CUDA_DEVICE_MAX_CONNECTIONS=1");
	cr_expect_eq(cmd(1)->env[1].loc.col, 29);
	cr_expect_eq(cmd(1)->loc.col, 31);
}

Test(sh, quotes_and_escapes)
{
	parse_ok("echo 'a \"b\" $X' \"c 'd' \\$X \\\" \\q\" a\\ b \\$\n"
		 "echo $'t\\tn\\nx\\x41o\\101q\\'e\\q' $\"dq\"\n"
		 "echo '' \"\" x''y\n");
	cr_expect_str_eq(words(0), "echo|a \"b\" $X|c 'd' $X \" \\q|a b|$");
	cr_expect_str_eq(words(1), "echo|t\tn\nxAoAq'e\\q|dq");
	cr_expect_str_eq(words(2), "echo|||xy", "quotes make a word even when empty");
	expect_pos(word_at(0, 1), 1, 7);       /* inside the quotes */
	expect_pos(word_at(2, 1), 3, 6);       /* an empty word: at its quote */
}

Test(sh, continuations_keep_positions)
{
	parse_ok("python \\\n  train.py --a\\\nb \"x\\\ny\"\n");
	cr_expect_str_eq(words(0), "python|train.py|--ab|xy");
	expect_pos(word_at(0, 1), 2, 3);
	expect_pos(word_at(0, 2), 2, 12);
	expect_pos(word_at(0, 3), 3, 4);
}

Test(sh, comments_only_at_word_start)
{
	parse_ok("#!/bin/bash\n#SBATCH --gres=gpu:8\necho a#b # c d\n  # indented\necho e\\#f '#g'\n");
	cr_expect_eq(sc.n_cmds, 2);
	cr_expect_str_eq(words(0), "echo|a#b");
	cr_expect_str_eq(words(1), "echo|e#f|#g");
}

Test(sh, operators_separate_commands)
{
	parse_ok("a 1; b 2 && c 3 || d 4 | e 5 & f 6 |& g\n(h 7; i 8) { j 9; }\nk 10\n");
	const char *want[] = {"a|1", "b|2", "c|3", "d|4", "e|5", "f|6", "g", "h|7", "i|8", "j|9", "k|10"};
	cr_assert_eq(sc.n_cmds, 11);
	for (size_t i = 0; i < 11; i++)
		cr_expect_str_eq(words(i), want[i]);
}

Test(sh, redirections_are_not_words)
{
	parse_ok("python t.py --x 1 2>&1 >log.txt | tee -a out >/dev/null\n"
		 "python u.py &> all.log < in.txt 3<>f >> app >| clob <<< \"here string\"\n"
		 "python v.py > >(tee log) 2> >(grep err >&2)\n");
	cr_expect_str_eq(words(0), "python|t.py|--x|1");
	cr_expect_str_eq(words(1), "tee|-a|out");
	cr_expect_str_eq(words(2), "python|u.py");
	cr_expect_str_eq(words(3), "python|v.py");
}

Test(sh, heredocs_are_skipped)
{
	parse_ok("cat <<EOF > cfg.yaml\n"
		 "model: {cuda_graph_impl: \"unclosed\n"
		 "  $(not a command\n"
		 "EOF\n"
		 "cat <<-'END' ; cat << \"Q\"\n"
		 "\t--flag 'x\n"
		 "\tEND\n"
		 "body of Q `\n"
		 "Q\n"
		 "python run.py --after\n"
		 "cat <<\\E\nEOF\nE\n"
		 "echo last\n");
	cr_assert_eq(sc.n_cmds, 6);
	cr_expect_str_eq(words(0), "cat");
	cr_expect_str_eq(words(1), "cat");
	cr_expect_str_eq(words(2), "cat");
	cr_expect_str_eq(words(3), "python|run.py|--after");
	expect_pos(word_at(3, 0), 10, 1);
	cr_expect_str_eq(words(4), "cat");
	cr_expect_eq(cmd(4)->loc.line, 11);
	cr_expect_str_eq(words(5), "echo|last");
	/* an unterminated heredoc ends at the end of the file, as in bash */
	parse_ok("cat <<EOF\nnever closed \"\n");
}

Test(sh, assignments_and_export)
{
	parse_ok("A=1\n"
		 "export B=2\n"
		 "C=3; export C\n"
		 "export D\n"
		 "run first\n"
		 "D=4\n"
		 "A=5\n"
		 "B=6\n"
		 "declare -x E=7\n"
		 "local F=8; readonly G=9; typeset H=10\n"
		 "run second $A $F $G $H\n"
		 "export -n C; unset B\n"
		 "declare +x E\n"
		 "run third\n"
		 "export B=11 C\n"
		 "run fourth\n");
	cr_assert_eq(sc.n_cmds, 4, "export/declare/local lines are not commands");
	cr_expect_str_eq(env(0), "B=2 C=3", "D has no value yet");
	cr_expect_str_eq(env(1), "B=6 C=3 D=4 E=7", "first-export order, latest values");
	cr_expect_str_eq(words(1), "run|second|5|8|9|10", "set but not exported still expands");
	cr_expect_str_eq(env(2), "D=4");
	cr_expect_str_eq(env(3), "B=11 C=3 D=4", "re-exported keep their first place");
	cr_expect_eq(cmd(1)->env[0].loc.line, 8);
	cr_expect_eq(cmd(1)->env[0].loc.col, 3);
}

Test(sh, earlier_commands_keep_their_env)
{
	parse_ok("export A=1\nrun a\nexport B=2\nrun b\nA=3\nrun c\nX=9 run d\nexport C=4\nrun e\n");
	cr_expect_str_eq(env(0), "A=1");
	cr_expect_str_eq(env(1), "A=1 B=2");
	cr_expect_str_eq(env(2), "A=3 B=2");
	cr_expect_str_eq(env(3), "A=3 B=2 X=9");
	cr_expect_str_eq(env(4), "A=3 B=2 C=4");
	cr_expect_str_eq(env(0), "A=1", "still, after later exports");
	cr_expect_str_eq(env(1), "A=1 B=2");
}

Test(sh, inline_assignments_are_for_the_command_only)
{
	parse_ok("X=old\nexport Y=y\nX=1 Z=$X run $X\necho $X $Z\nY=2 run2\nrun3\nW=1 V=2\necho $W$V\n");
	cr_expect_str_eq(words(0), "run|old", "words expand before the assignments apply");
	cr_expect_str_eq(env(0), "Y=y X=1 Z=1", "each assignment sees the ones before it");
	cr_expect_str_eq(words(1), "echo|old|?");
	cr_expect_str_eq(env(2), "Y=y Y=2", "an inline value follows the exported one");
	cr_expect_str_eq(env(3), "Y=y");
	cr_expect_str_eq(words(4), "echo|12", "assignments alone stay");
	cr_expect_eq(cmd(0)->loc.col, 10);
}

Test(sh, arrays)
{
	parse_ok("A=(one \"two three\" '' four)\n"
		 "echo ${A[@]}\n"
		 "echo \"${A[@]}\"\n"
		 "echo \"x${A[@]}y\"\n"
		 "echo \"${A[*]}\" ${A[1]} \"${A[1]}\" $A ${#A[@]} ${A[9]}\n"
		 "A+=(five)\nA[0]=zero\nA[1]+=!\n"
		 "B=(\"${A[@]}\" six)\n"
		 "echo \"${B[@]}\"\n"
		 "E=()\necho \"${E[@]}\" ${E[@]} end\n"
		 "declare -a D=(d1 d2)\necho ${D[1]}\n");
	cr_expect_str_eq(words(0), "echo|one|two|three|four", "unquoted: split, empty elements vanish");
	cr_expect_str_eq(words(1), "echo|one|two three||four", "quoted: one word per element");
	cr_expect_str_eq(words(2), "echo|xone|two three||foury");
	cr_expect_str_eq(words(3), "echo|one two three  four|two|three|two three|one|4");
	cr_expect_str_eq(words(4), "echo|zero|two three!||four|five|six", "an array built from itself");
	cr_expect_str_eq(words(5), "echo|end", "\"${E[@]}\" of an empty array is no word");
	cr_expect_str_eq(words(6), "echo|d2");
	expect_pos(word_at(1, 2), 1, 9);
	expect_pos(word_at(1, 3), 3, 7);        /* an empty element: at the $ that expanded it */
	expect_pos(word_at(4, 6), 9, 14);
}

Test(sh, parameter_expansion_forms)
{
	parse_ok("S=set\nE=\n"
		 "echo ${S:-d} ${E:-d} ${E-d} ${U:-d} ${U-d}\n"
		 "echo ${S:+alt} ${E:+alt} ${E+alt} ${U:+alt}x\n"
		 "echo ${N:=new} $N ${E:=filled} $E\n"
		 "echo ${#S} ${#U} ${S:?m} ${U:?m}\n"
		 "echo ${U:-two words} \"${U:-two words}\" ${U:-\"two words\"} \"${U:-$S}\" ${U:-${V:-deep}}\n"
		 "echo ${S#s} ${S%t} ${S/e/a} ${S:1} ${S^^} ${!S} x${S}y\n");
	cr_expect_str_eq(words(0), "echo|set|d|d|d", "${E-d} of a set, empty E is no word");
	cr_expect_str_eq(words(1), "echo|alt|alt|x");
	cr_expect_str_eq(words(2), "echo|new|new|filled|filled");
	cr_expect_str_eq(words(3), "echo|3|?|set|?");
	cr_expect_str_eq(words(4), "echo|two|words|two words|two words|set|deep");
	cr_expect_str_eq(words(5), "echo|?|?|?|?|?|?|xsety", "forms the reader does not evaluate");
	expect_pos(word_at(0, 2), 3, 19);
	expect_pos(word_at(2, 1), 5, 11);
	expect_pos(word_at(2, 2), 5, 11);       /* $N: the word of ${N:=new} that set it */
}

Test(sh, unresolved_words)
{
	parse_ok("X=$(hostname)\nY=\"--a 1 $(cmd) --b\"\n"
		 "run $U \"$U\" --x=$U $1 \"$@\" $* `date` $((1+2)) $X ${10} $$ $?\n"
		 "run2 $Y\n"
		 "export Z=\"pre$(cmd)\"\nrun3\n");
	cr_expect_str_eq(words(0), "run|?|?|--x=?|?|?|?|?|?|?|?|?|?");
	cr_expect_eq(cmd(0)->argc, 13);
	cr_expect_str_eq(words(1), "run2|--a|1|?|--b", "only the word the unknown part lands in");
	expect_pos(word_at(0, 1), 3, 5);
	expect_pos(word_at(0, 3), 3, 13);
	expect_pos(word_at(1, 3), 2, 10);
	expect_pos(word_at(1, 4), 2, 17);
	cr_expect_str_eq(env(2), "Z=?", "an unresolved value is NULL");
	cr_expect_eq(cmd(2)->env[0].value, NULL);
	parse_ok("$CMD --flag\n");
	cr_expect_str_eq(words(0), "?|--flag", "an unknown program is still a command");
}

Test(sh, process_environment_is_never_read)
{
	setenv("CGLINT_SH_TEST_VAR", "leaked", 1);
	parse_ok("run $CGLINT_SH_TEST_VAR $HOME\n");
	cr_expect_str_eq(words(0), "run|?|?");
}

Test(sh, positions_of_expanded_words)
{
	/* "é" is two bytes: columns count bytes */
	parse_ok("# é\nA=\"é --lr 1e-4\"\nB=$A\nC=\"pre $B\"\n  run $C ${C}\n");
	cr_expect_str_eq(words(0), "run|pre|é|--lr|1e-4|pre|é|--lr|1e-4");
	expect_pos(word_at(0, 0), 5, 3);
	expect_pos(word_at(0, 1), 4, 4);
	expect_pos(word_at(0, 2), 2, 4);
	expect_pos(word_at(0, 3), 2, 7);        /* through C and B back to A's assignment */
	expect_pos(word_at(0, 4), 2, 12);
	expect_pos(word_at(0, 7), 2, 7);
}

Test(sh, control_flow_is_read_through)
{
	parse_ok("if [[ -z \"$X\" && $Y < 3 ]]; then\n  X=1\nelif [ -n x ]; then X=2; else X=3; fi\n"
		 "for i in 1 2 $(seq 3); do run $i; done\n"
		 "for ((i = 0; i < 3; i++)); do :; done\n"
		 "while read -r l; do echo \"$l\"; done < f\n"
		 "case \"$MODE\" in\n  a|b) run a --x $X ;;\n  (c) run c\n    ;;\n  *) run d ;;&\nesac\n"
		 "f() { run f \"$@\"; }\nfunction g { run g; }\nfunction h() {\n  run h\n}\n"
		 "(( n = 1 + 2 ))\n! run neg\ntime -p run timed\n{ run grouped; }\n");
	const char *want[] = {"[|-n|x|]", "run|?", ":", "read|-r|l", "echo|?", "run|a|--x|3", "run|c",
			      "run|d", "run|f|?", "run|g", "run|h", "run|neg", "run|timed", "run|grouped"};
	cr_assert_eq(sc.n_cmds, sizeof(want) / sizeof(*want), "%zu commands", sc.n_cmds);
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++)
		cr_expect_str_eq(words(i), want[i], "command %zu", i);
}

Test(sh, cg908_for_each_unterminated_construct)
{
	struct {
		const char *text;
		unsigned line, col;
	} cases[] = {
		{"run ok\nX='abc\n", 2, 3},
		{"run ok\nX=\"abc\nrun more\n", 2, 3},
		{"run ok\necho $'abc\n", 2, 6},
		{"run ok\necho ${X:-abc\n", 2, 6},
		{"run ok\necho \"${X:-\"a}\"\n", 2, 7},
		{"run ok\necho $(date\n", 2, 6},
		{"run ok\necho $((1 + 2)\n", 2, 6},
		{"run ok\necho `date\n", 2, 6},
		{"run ok\nA=(1 2\n", 2, 3},
		{"run ok\nA=(1 ; 2)\n", 2, 6},
		{"run ok\n(( 1 + 2 )\n", 2, 1},
		{"run ok\ndiff <(ls a) <(ls\n", 2, 14},
		{"run ok\necho $(echo \"a)\n", 2, 13},  /* the innermost open construct */
		{"run ok\necho ${\n", 2, 6},
		{"run ok\nfor ((i = 0;\n", 2, 5},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		teardown();
		setup();
		expect_cg908(cases[i].text, cases[i].line, cases[i].col);
		cr_expect_eq(sc.n_cmds, 1, "%s: the command before it is kept", cases[i].text);
		if (sc.n_cmds)
			cr_expect_str_eq(words(0), "run|ok");
	}
}

Test(sh, nul_bytes_and_invalid_utf8)
{
	const char text[] = "run \xff\xfe a\0b \"\0\" $'\\0x'\n\x80\x81 x\n";
	cr_assert_eq(parse_n(text, sizeof(text) - 1), 0);
	cr_expect_eq(sc.n_cmds, 2);
	cr_expect_str_eq(word_at(0, 1)->text, "\xff\xfe");
	cr_expect_str_eq(word_at(1, 0)->text, "\x80\x81");
	cr_assert_eq(parse_n("", 0), 0);
	cr_expect_eq(sc.n_cmds, 0);
	cr_assert_eq(fe_sh_parse(a, &d, "run.sh", NULL, 0, &sc), 0);
}

/* ---- hostile inputs: each must end quickly and without a crash ---- */

static char *repeat(const char *head, const char *unit, size_t n, const char *tail)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
	char *s = malloc(hl + ul * n + tl + 1);
	memcpy(s, head, hl);
	for (size_t i = 0; i < n; i++)
		memcpy(s + hl + i * ul, unit, ul);
	memcpy(s + hl + ul * n, tail, tl + 1);
	return s;
}

/* ${A:-${A:-...x...}}: deeper than the expansion limit, read iteratively past it */
Test(sh, hostile_deep_default_nesting, .timeout = 30)
{
	size_t n = 100000;
	char *open = repeat("run ", "${A:-", n, "x"), *close = repeat(open, "}", n, "\nrun next\n");
	free(open);
	cr_assert_eq(parse_n(close, strlen(close)), 0);
	cr_expect_str_eq(words(0), "run|?", "too deep: unresolved");
	cr_expect_str_eq(words(1), "run|next");
	free(close);

	teardown();
	setup();
	char *q = repeat("run ", "\"${A:-", n, "x"), *qq = repeat(q, "}\"", n, "\n");
	free(q);
	cr_assert_eq(parse_n(qq, strlen(qq)), 0);
	cr_expect_str_eq(words(0), "run|?");
	free(qq);

	teardown();
	setup();
	char *c = repeat("run ", "$(", n, ""), *cc = repeat(c, ")", n, "\n");
	free(c);
	cr_assert_eq(parse_n(cc, strlen(cc)), 0);
	cr_expect_str_eq(words(0), "run|?");
	free(cc);

	teardown();
	setup();
	char *u = repeat("run ", "${A:-", n, "x\n");   /* never closed */
	cr_assert_eq(parse_n(u, strlen(u)), -1);
	cr_expect_eq(d.n, 1);
	free(u);
}

Test(sh, hostile_megabyte_line, .timeout = 30)
{
	char *s = repeat("run ", "ab ", 350000, "\nrun after\n");      /* about 1 MB */
	cr_assert_eq(parse_n(s, strlen(s)), 0);
	cr_assert_eq(sc.n_cmds, 2);
	cr_expect_eq(cmd(0)->argc, 65536, "capped");
	cr_expect(cmd(0)->argv[65535].unresolved, "the cut is marked");
	cr_expect_str_eq(words(1), "run|after");
	free(s);

	teardown();
	setup();
	s = repeat("X=\"", "x", 1 << 20, "y\"\nrun $X\n");      /* one 1 MB word */
	cr_assert_eq(parse_n(s, strlen(s)), 0);
	cr_expect(word_at(0, 1)->unresolved, "a value past the limit is marked");
	free(s);
}

Test(sh, hostile_many_variables, .timeout = 30)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (int i = 0; i < 100000; i++)
		sbuf_printf(&sb, "export V%d=%d\nW%d=$V%d\n", i, i, i, i);
	for (int i = 0; i < 20000; i++)
		sbuf_printf(&sb, "export E%d=1; run $W%d\n", i, i * 5);
	cr_assert_eq(parse_n(sb.buf, sb.len), 0);
	cr_assert_eq(sc.n_cmds, 20000);
	cr_expect_eq(cmd(19999)->n_env, 120000);
	cr_expect_str_eq(words(19999), "run|99995");
	cr_expect_eq(cmd(0)->n_env, 100001, "earlier commands keep their env");
	sbuf_release(&sb);
}

Test(sh, hostile_exponential_values, .timeout = 30)
{
	char *s = repeat("X=ab\n", "X=$X$X$X$X\n", 2000, "run $X\n");
	cr_assert_eq(parse_n(s, strlen(s)), -1, "runs out of budget");
	cr_expect_eq(d.n, 1);
	cr_expect_str_eq(d.items[0].rule->head.id, "CG908");
	free(s);

	teardown();
	setup();
	s = repeat("A=(x)\n", "A=(\"${A[@]}\" \"${A[@]}\")\n", 100, "run \"${A[@]}\"\n");
	int rc = parse_n(s, strlen(s));
	cr_expect(rc == 0 || (rc == -1 && d.n == 1), "either within bounds or one CG908");
	free(s);
}
