/*
 * live_spin.c: spins in one recognisable function until killed, for the
 * live view test.
 */
static volatile double sink;

__attribute__((noinline)) void
live_hot_spin(void)
{
	int i;

	for (i = 0; i < 100000; i++)
		sink += i;
}

int
main(void)
{
	for (;;)
		live_hot_spin();
}
