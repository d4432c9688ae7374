/*
 * bpf/object.S: the compiled bpf/pyframes.c and bpf/deepcopy.c, linked
 * into sp-record as bytes (pybpf.c and deepbpf.c load them);
 * PYBPF_OBJECT and DEEPBPF_OBJECT name the files, given by the build.
 */
	.section .rodata
	.balign 8
	.globl rec_pybpf_object
rec_pybpf_object:
	.incbin PYBPF_OBJECT
	.globl rec_pybpf_object_end
rec_pybpf_object_end:
	.balign 8
	.globl rec_deepbpf_object
rec_deepbpf_object:
	.incbin DEEPBPF_OBJECT
	.globl rec_deepbpf_object_end
rec_deepbpf_object_end:
	.section .note.GNU-stack,"",@progbits
