/*
 * JavaWork.java: a CPU-bound Java program with three known hot methods,
 * for the sp-record Java test (t1060).
 *
 *   java JavaWork SECONDS
 *
 * SECONDS is wall time; "0.5c" runs until the main thread has used 0.5 s
 * of CPU, so that a test gets its samples however loaded the machine is.
 *
 * main -> work -> mix (a loop of integer arithmetic) and main -> work ->
 * scan -> mix, so that mix is sampled under two callers.  The test runs
 * it with inlining of JavaWork's methods turned off, so each keeps its
 * own compiled code and perf map entry, and without on-stack
 * replacement, so main stays in the interpreter.
 */
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public final class JavaWork {
	static long sink;

	static long mix(long x, int n) {
		for (int i = 0; i < n; i++)
			x = x * 6364136223846793005L + 1442695040888963407L ^ (x >>> 29);
		return x;
	}

	static long scan(long[] a) {
		long s = 0;
		for (int i = 0; i < a.length; i++) {
			a[i] = mix(a[i] + s, 8);
			s += a[i] >>> 7;
		}
		return s;
	}

	static long work(long[] a) {
		return mix(sink, 4000) + scan(a);
	}

	public static void main(String[] args) {
		String arg = args.length > 0 ? args[0] : "1";
		boolean cpu = arg.endsWith("c");
		double secs = Double.parseDouble(cpu ? arg.substring(0,
			arg.length() - 1) : arg);
		ThreadMXBean mx = ManagementFactory.getThreadMXBean();
		long end = (cpu ? mx.getCurrentThreadCpuTime() : System.nanoTime())
			+ (long)(secs * 1e9);
		long[] a = new long[500];

		do {
			for (int i = 0; i < 100; i++)
				sink += work(a);
		} while ((cpu ? mx.getCurrentThreadCpuTime() : System.nanoTime())
			< end);
		System.out.println(sink == 42 ? "" : "done");
	}
}
