/*
 * bpf/object.S: the compiled bpf/pyframes.c, linked into sp-record as
 * bytes (pybpf.c loads it); PYBPF_OBJECT names the file, given by the
 * build.
 */
	.section .rodata
	.balign 8
	.globl rec_pybpf_object
rec_pybpf_object:
	.incbin PYBPF_OBJECT
	.globl rec_pybpf_object_end
rec_pybpf_object_end:
	.section .note.GNU-stack,"",@progbits
