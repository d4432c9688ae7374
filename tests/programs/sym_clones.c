/*
 * sym_clones.c: fixture for sp-symbolize's names: at -O2 GCC clones
 * by_field into by_field.isra.0 (one field of a struct passed by value),
 * scaled into scaled.constprop.0 (always called with k = 5) and splits
 * checked into an inlined early exit and checked.part.0.
 */
volatile int sink;
int arr[100];

struct big {
	long a[64];
	long used;
};

__attribute__((noinline)) static int
by_field(struct big b)
{
	int r = 0;

	for (int i = 0; i < 1000; i++)
		r += b.used + sink;
	return r;
}

__attribute__((noinline)) static int
scaled(int x, int k)
{
	int r = 0;

	for (int i = 0; i < 1000; i++)
		r += x * k + sink;
	return r;
}

static int
checked(int *p, int n)
{
	int r = 0;

	if (__builtin_expect(p == 0, 1))
		return 0;
	for (int i = 0; i < n; i++) {
		r += p[i] * 7 + sink;
		if (r > 100000)
			r ^= p[i];
		sink = r;
	}
	for (int i = 0; i < n; i++) {
		r -= p[i] * 3 + sink;
		if (r < -5)
			r += p[i] / 3;
		sink = r;
	}
	for (int i = 0; i < n; i++) {
		r -= p[i] * 5 + sink;
		if (r < -7)
			r += p[i] / 5;
		sink = r;
	}
	return r;
}

int
main(int argc, char **argv)
{
	static struct big b1, b2;
	int r = 0;

	(void)argv;
	b1.used = argc;
	b2.used = argc + 1;
	for (long j = 0; j < 100000; j++) {
		r += by_field(j & 1 ? b1 : b2);
		r += scaled(argc, 5);
		r += checked(argc > 0 ? arr : 0, 100);
		r += checked(argc > 9 ? arr : 0, 50);
	}
	return r == 42;
}
