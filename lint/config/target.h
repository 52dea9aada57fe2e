/* SPDX-License-Identifier: MIT */
/*
 * target: the software a run is checked against. Versions are encoded as major*1000+minor*10
 * (0.16 -> 160, 1.2 -> 1020); patch releases never change a CUDA-graph rule (catalogue §0.1).
 * The one unreleased MCore a Bridge release ships, core_dev_r0.15.0 (Bridge 0.2), sorts between
 * 0.15 and 0.16 as 155 (catalogue MC-DEV).
 */
#ifndef CGLINT_TARGET_H
#define CGLINT_TARGET_H

#include <stdbool.h>

#define TARGET_NO_BRIDGE (-1)   /* plain Megatron-LM */
#define TARGET_MCORE_DEV 155     /* core_dev_r0.15.0 */
#define TARGET_BRIDGE_ENV_VARS 60 /* ConfigContainer.env_vars exists from Bridge 0.6 (catalogue BR-14) */
/*
 * The development branches, as snapshotted (docs/reference.md, "Development targets"): both sort
 * after every release. TARGET_MAIN is Megatron-LM main for --mcore and Megatron-Bridge main for
 * --bridge. Bridge main runs the Megatron Core its 3rdparty/Megatron-LM submodule pins,
 * TARGET_MCORE_PIN, which is older than Megatron-LM main: in a pack, a check that only Megatron-LM
 * main has is "main", one that the pin has too ">=main@2a75ac12", and one that main removed "<main".
 */
#define TARGET_MCORE_PIN 9980
#define TARGET_MAIN 9990

struct target {
	int mcore;          /* e.g. 170 */
	int bridge;         /* e.g. 40, or TARGET_NO_BRIDGE */
	int gpu_major;      /* compute capability major (9 for sm_90/h100), 0 when unknown */
	const char *gpu;    /* as given, or NULL */
	int te;             /* Transformer Engine release the job runs (2.10 -> 2100), 0 when unknown */
};

/* A half-open version interval [lo, hi); 'none_only' restricts a Bridge range to Megatron-LM. */
struct vrange {
	int lo, hi;
	bool none_only;
	bool any;
};

int target_parse_version(const char *s, int *out);          /* "0.16" -> 160, "dev" -> 155; 0 or -1 */
int target_parse_range(const char *s, struct vrange *out);  /* ">=0.16 <0.18", "0.17", "none"; 0 or -1 */
bool target_in_range(const struct vrange *r, int v, bool is_bridge);
int target_parse_gpu(const char *s, int *major);            /* sm_90, h100, b200, ...; 0 or -1 */
int target_parse_te(const char *s, int *out);               /* a Transformer Engine release, "2.12"; 0 or -1 */

/* Supported versions and defaults. Bridge releases default to the MCore they ship. */
extern const int target_mcore_supported[];
extern const int target_bridge_supported[];
int target_bridge_mcore(int bridge);            /* MCore shipped by a Bridge release */
int target_default_bridge(int mcore);           /* Bridge shipping an MCore, or TARGET_NO_BRIDGE */
/* The Bridge release shipping 'mcore', else the one shipping the nearest newer MCore (0.15 ->
 * Bridge 0.2, which ships core_dev_r0.15.0), else the newest. */
int target_nearest_bridge(int mcore);
const char *target_version_str(int v, char buf[16]);
/* The commit a development target stands for (40 hex digits), NULL for a release. */
const char *target_commit(int v, bool is_bridge);
/* A target as outputs name it: a release as target_version_str, a development target with its
 * commit and date ("main (Megatron-LM d98e8a64dd, 2026-08-22)"). */
const char *target_label(int v, bool is_bridge, char buf[96]);
/* For a development target, "Megatron Core main (Megatron-LM d98e8a64dd, 2026-08-22),
 * Megatron-Bridge none": what outputs name it by, in 'buf'; NULL for a release. */
const char *target_describe(const struct target *t, char buf[256]);
/* The newest release, the target when none is given. */
int target_newest_release(void);
const char *target_supported_list(const int *vs, char *buf, unsigned size);
/*
 * Fill in what was not given (mcore 0 or bridge 0): a Bridge release implies the MCore it ships,
 * an MCore the Bridge shipping it, nothing the newest. -1 with a message in 'why' when a
 * version has no rules in this build.
 */
int target_resolve(struct target *t, char *why, unsigned size);
/* The supported releases 'r' holds, "0.16, 0.17" (a Bridge range may add "none"); "" if none. */
const char *target_range_list(const struct vrange *r, bool is_bridge, char *buf, unsigned size);

#endif
