// go_gc.go: a Go program that spends its time allocating, so that much of
// it runs under runtime.systemstack (span allocation, the garbage
// collector's mark workers and assists), on the thread's g0 stack.
// Usage: go_gc SECONDS (of the process's CPU time, user + system, as
// getrusage counts it), e.g. 2 or "2c".  Two goroutines build and drop
// trees and maps; one keeps a few alive so the collector has work.
package main

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

type node struct {
	left, right *node
	val         [4]int64
}

//go:noinline
func build(depth int) *node {
	if depth == 0 {
		return &node{}
	}
	return &node{left: build(depth - 1), right: build(depth - 1)}
}

//go:noinline
func churn(keep map[int]*node, i int) int {
	t := build(10)
	m := make(map[int][]byte, 64)
	for j := 0; j < 64; j++ {
		m[j] = make([]byte, 96)
	}
	if i%16 == 0 {
		keep[i%64] = t
	}
	return len(m)
}

// cpuSeconds is the process's CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) +
		float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

//go:noinline
func worker(limit float64, wg *sync.WaitGroup) {
	defer wg.Done()
	keep := make(map[int]*node)
	for i := 0; ; i++ {
		churn(keep, i)
		if i%8 == 0 && cpuSeconds() >= limit {
			return
		}
	}
}

func main() {
	limit := 1.0
	if len(os.Args) > 1 {
		v, err := strconv.ParseFloat(strings.TrimSuffix(os.Args[1], "c"), 64)
		if err != nil {
			os.Stderr.WriteString("usage: go_gc SECONDS\n")
			os.Exit(2)
		}
		limit = v
	}
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go worker(limit, &wg)
	}
	wg.Wait()
}
