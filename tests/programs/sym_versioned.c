/*
 * sym_versioned.c: a shared object whose one function has two symbol
 * versions, as glibc's do: vfun@@V2 (the default, vnew) and vfun@V1
 * (vold).  Link with a version script declaring V1 and V2 (see t3005).
 */
__attribute__((noinline)) int
vnew(int x)
{
	return x * 3;
}

__attribute__((noinline)) int
vold(int x)
{
	return x * 2;
}

__asm__(".symver vold, vfun@V1");
__asm__(".symver vnew, vfun@@V2");
