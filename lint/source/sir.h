/* SPDX-License-Identifier: MIT */
/*
 * sir ("source IR"): one translation unit as plain data, the part the capture checks read.
 * fe_clang fills it from libclang's AST in one walk; nothing downstream sees a libclang type.
 *
 * Each function defined outside system headers is a list of events in source order: calls
 * (API or user functions), kernel launches, writes to variables, and the statements that
 * leave a block early. Each event carries the structure around it that the checks need
 * (enclosing statement, block, loop, branch and its condition) as byte offsets into its file.
 *
 * Everything lives in the arena passed to fe_clang_parse; a sir_tu is freed with it.
 */
#ifndef CGLINT_SIR_H
#define CGLINT_SIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/loc.h"

/* What an argument expression denotes, as far as the checks care. */
enum sir_ref_kind {
	REF_NONE,       /* no such argument, or a default argument the caller left out */
	REF_NULL,       /* 0, NULL, nullptr: the legacy stream when passed as a stream */
	REF_LEGACY,     /* cudaStreamLegacy, CU_STREAM_LEGACY */
	REF_PER_THREAD, /* cudaStreamPerThread, CU_STREAM_PER_THREAD */
	REF_VAR,        /* a variable, parameter or field: 'decl' */
	REF_CURRENT,    /* at::cuda::getCurrentCUDAStream() and friends */
	REF_DEFAULT,    /* at::cuda::getDefaultCUDAStream(): the legacy default stream */
	REF_POOL,       /* at::cuda::getStreamFromPool(): a fresh non-blocking stream */
	REF_CONST,      /* another integer or enumerator constant: 'ival', 'text' */
	REF_OTHER,      /* anything else: 'text' is its spelling, shortened */
};

struct sir_ref {
	enum sir_ref_kind kind;
	bool addr;              /* written as &x */
	bool has_ival;
	int64_t ival;
	int decl;               /* REF_VAR: index into sir_tu.decls */
	const char *text;       /* enumerator or macro name, or spelling; may be NULL */
	/* REF_VAR: an element of the array 'decl' (streams[i]); with a constant index, 'index' is
	 * it; with an index written v or v +/- c, index_var1 is v's decl + 1 and 'index' is c.
	 * Elements whose index cglint does not know stand for one another. */
	bool elem, const_index;
	int64_t index;
	int index_var1;
	/* A function of the unit it denotes (handler, &handler, a lambda, a std::function made of
	 * one): fn_key while the unit is walked, then fn1, its index + 1 (0: none). */
	const char *fn_key;
	int fn1;
	/* REF_VAR of a field: the object it is a member of (p->cb, cbs.post, table[1].fn), or NULL */
	const struct sir_ref *base;
};

/*
 * A function an aggregate initializer stores: { "name", fn } into a field, { fa, fb } into an
 * array of pointers. A call through 'field' of 'var' (var.field, p->field with p = &var,
 * var[index].field), or through var[index] itself, may call it.
 */
struct sir_bind {
	int var;                /* the variable initialised (index into sir_tu.decls) */
	int field;              /* the field it is stored in, or -1: an element of 'var' itself */
	int64_t index;          /* which element of 'var', an array, or -1 */
	const char *fn_key;     /* as sir_ref's: resolved to fn1 once the unit is walked */
	int fn1;
};

/*
 * What a condition tests, as a small tree: && || ! and == != over values, a value being a
 * variable or constant (COND_REF) or a call's result (COND_CALL); anything else is COND_OTHER.
 * The checks judge it (a capture-status test, an error test, a null test).
 */
enum sir_cond_kind { COND_OTHER, COND_REF, COND_CALL, COND_EQ, COND_NE, COND_NOT, COND_AND, COND_OR };

struct sir_cond {
	enum sir_cond_kind kind;
	struct sir_ref ref;             /* COND_REF */
	const char *name;               /* COND_CALL: the callee, qualified, API suffixes stripped */
	struct sir_ref *args;           /* COND_CALL */
	unsigned n_args;
	const struct sir_cond *a, *b;   /* the operands: NOT has 'a' alone */
};

/*
 * A branch: the then or else part of an if (when the condition holds, or not), either side of
 * ?:, the right operand of && or ||, or a switch's body (no condition). Arms nest through 'up';
 * an event's innermost arm is sir_ev.arm.
 */
struct sir_arm {
	int fn;                         /* the function it is in (index into sir_tu.fns) */
	int up;                         /* enclosing arm, or -1 */
	const struct sir_cond *cond;    /* NULL when unknown */
	bool when;                      /* runs when 'cond' holds (then), or when it does not (else) */
	size_t ev;                      /* the first event of its function after the test */
	struct loc loc;                 /* of the if (?:, &&, switch) it belongs to */
};

enum sir_decl_kind { DECL_LOCAL, DECL_PARAM, DECL_GLOBAL, DECL_FIELD };

struct sir_decl {
	const char *name;
	const char *type;       /* canonical type spelling, e.g. "struct CUgraph_st *" */
	enum sir_decl_kind kind;
	int fn;                 /* owning function for locals and parameters, else -1 */
	int param;              /* DECL_PARAM: its position */
	unsigned off;           /* where it is declared (same file as its function) */
	struct loc loc;
	bool in_main;           /* declared in the main file */
	bool scalar;            /* arithmetic, enum or pointer type, not const */
	unsigned uses;          /* references anywhere in the translation unit */
	unsigned tests;         /* of them, tests against null: if (h), !h, h && ..., h == NULL */
	/* DECL_LOCAL: the element of an array it alone ever holds (cudaStream_t cur = streams[i % n],
	 * for (auto s : streams)), its address never taken; else NULL */
	const struct sir_ref *elem_of;
	bool alias_bad;         /* while the unit is walked: not such a local */
};

enum sir_ev_kind {
	EV_CALL,        /* a call: 'name' is the callee (API or user function) */
	EV_LAUNCH,      /* kernel<<<...>>>: 'name' the kernel, 'stream' its stream, args the kernel's */
	EV_VAR,         /* a local object built by a constructor (guards): 'name' is its type */
	EV_WRITE,       /* ++x, x += e, x = e, or an initialised declaration: 'target' */
	EV_RETURN,
	EV_BREAK,
	EV_CONTINUE,
	EV_GOTO,
	EV_THROW,
};

struct sir_ev {
	enum sir_ev_kind kind;
	struct loc loc;
	unsigned off;           /* byte offset of the event in its file */
	const char *name;       /* EV_CALL/EV_LAUNCH/EV_VAR: qualified name, API suffixes stripped */
	int callee;             /* EV_CALL: index of a function defined in this TU, or -1 */
	struct sir_ref object;  /* method calls: the object (graph.capture_begin()) */
	struct sir_ref stream;  /* EV_LAUNCH: the stream of the launch configuration */
	struct sir_ref *args;   /* EV_RETURN: args[0] is the value returned, if any */
	unsigned n_args;
	struct sir_ref target;  /* EV_WRITE: what is written; args[0] is the value when known */
	bool counter;           /* EV_WRITE: ++, --, or a compound assignment */
	bool from_call;         /* EV_WRITE: the value is a call's result (err = cudaX(...)) */
	bool loop_control;      /* EV_WRITE: in a for statement's init or increment */
	bool used;              /* EV_CALL: the result is used (not a discarded expression) */
	bool indirect;          /* EV_CALL through a function pointer, std::function or lambda object:
				 * 'object' is what is called, 'name' NULL unless a lambda's body is known */
	bool no_body;           /* EV_CALL: to a function declared outside system headers that has no
				 * body in the unit (defined in another file) */
	unsigned stmt_begin, stmt_end;  /* the statement of the enclosing block that holds it */
	unsigned blk_begin, blk_end;    /* the innermost enclosing { } block */
	int loop;               /* innermost enclosing loop (index into sir_tu.loops), or -1 */
	int breakable;          /* innermost loop or switch, the target of 'break', or -1 */
	unsigned cond;          /* if/switch/?:/&&/|| levels between it and its innermost loop */
	unsigned jump_to;       /* EV_GOTO: the label's offset */
	const char *macro;      /* the macro the event was written through, or NULL */
	int arm;                /* innermost enclosing branch (index into sir_tu.arms), or -1 */
	const struct sir_cond *value;   /* EV_RETURN: what it returns, EV_WRITE: a test written
					 * (b = x != y), read as a test; may be NULL */
};

/* A loop bound written as a variable plus a constant (width - 1, args->nGpus) or a constant. */
struct sir_bound {
	bool known;
	int var1;               /* the variable's decl + 1, or 0: the constant 'add' */
	int64_t add;
};

struct sir_loop {
	unsigned begin, end;    /* offsets of the loop (or switch) statement */
	int up;                 /* enclosing loop or switch, or -1 */
	/* for (i = lo; i < hi; i++), i <= hi - 1 read as < hi: the counter's decl + 1 (0: none)
	 * and the values it takes, [lo, hi); a bound cglint cannot read is not 'known' */
	int var1;
	struct sir_bound lo, hi;
};

struct sir_fn {
	const char *name;       /* qualified */
	struct loc loc;
	unsigned begin, end;
	bool in_main;
	const char *left_out;   /* why its body was not analysed (errors in it), or NULL */
	struct sir_ev *ev;
	size_t n_ev;
};

struct sir_tu {
	const char *path;
	struct sir_fn *fns;
	size_t n_fns;
	struct sir_decl *decls;
	size_t n_decls;
	struct sir_loop *loops;
	size_t n_loops;
	struct sir_arm *arms;
	size_t n_arms;
	struct sir_bind *binds;
	size_t n_binds;
	bool per_thread_stream;         /* stream 0 means cudaStreamPerThread (nvcc --default-stream per-thread) */
	/* The files the unit included, as clang names them; none when one of them had an error
	 * other than a missing declaration (their functions are then not to be trusted). */
	const char **included;
	size_t n_included;
};

#endif
