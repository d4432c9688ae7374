// outer runs optimized with middle inlined; a new shape deoptimizes
// middle eagerly, so the deoptimizer rebuilds outer's frame, whose
// return address is then Builtins_InterpreterEnterAtNextBytecode while
// spin runs.
function spin(n) {
	let x = 0;
	for (let i = 0; i < n; i++) x = (x + i * i) % 1000003;
	return x;
}
function middle(o, n) { const v = o.x; return spin(n) + v; }
function outer(o, n) { return middle(o, n) + 1; }
%NeverOptimizeFunction(spin);
const t0 = process.cpuUsage();
let s = 0, k = 0;
while (process.cpuUsage(t0).user < 1000000) {
	%PrepareFunctionForOptimization(outer);
	%PrepareFunctionForOptimization(middle);
	outer({ x: 1 }, 1);
	outer({ x: 1 }, 1);
	%OptimizeFunctionOnNextCall(outer);
	outer({ x: 1 }, 1);
	const o = { ["y" + k++]: 0, x: 2 };
	s += outer(o, 2000000);
}
console.log(s > 0);
