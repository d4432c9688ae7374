/*
 * deepbpf_abi.h: what sp-record and its BPF program bpf/deepcopy.c tell
 * each other: which threads' stacks to copy past the sample's own copy
 * (in), and the copies (out).  Plain fixed-size types only: the BPF
 * compiler and the host compiler both read this file.
 */
#ifndef SP_RECORD_BPF_DEEPBPF_ABI_H
#define SP_RECORD_BPF_DEEPBPF_ABI_H

#include <linux/types.h>

#define DEEPBPF_MAX (128u << 10) /* bytes copied at most, a power of two */
#define DEEPBPF_THREADS 1024     /* threads registered at most */

/* What to copy for a thread (the map `deep`, by tid). */
struct deepbpf_want {
	__u64 lo;   /* its stack's mapping, where the SP must lie: a thread */
	__u64 hi;   /* on another stack (a segment) gets no copy; nothing */
		    /* at or above hi is read */
	__u32 skip; /* bytes above SP the sample copies itself */
	__u32 max;  /* bytes to copy past those, at most DEEPBPF_MAX */
};

/* A record of the ring buffer `deepring`: len bytes from sp + skip. */
struct deepbpf_copy {
	__u64 ts; /* CLOCK_MONOTONIC, just before the sample's own */
	__u64 sp; /* the sample's user SP */
	__u32 tid, len;
	__u8 data[DEEPBPF_MAX];
};

#define DEEPBPF_HEAD 24 /* the bytes of deepbpf_copy before data */

#endif
