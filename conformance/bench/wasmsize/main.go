// Command wasmsize prints where the bytes of a Go-built wasm module go: the
// code of each package (from the function bodies and the "name" section; the
// module must be built without -s) and the data segments.
//
// Usage: wasmsize [-n rows] [-f functions] module.wasm
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

func main() {
	rows := flag.Int("n", 12, "how many packages to list")
	funcs := flag.Int("f", 0, "how many of the largest functions to list")
	flag.Parse()
	data, err := os.ReadFile(flag.Arg(0))
	if err == nil {
		err = report(data, *rows, *funcs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
}

// pkgRE takes the package from a Go symbol as the wasm name section spells
// it ("github.com_toolerr_toolerr_core_internal_transcript.canonicalText").
const own = "github.com/toolerr/toolerr/"

var pkgRE = regexp.MustCompile(`^(?:go:)?([^.(]*(?:\.[a-z]+_[^.(]*)?)`)

func report(b []byte, rows, funcs int) error {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return errors.New("not a wasm module")
	}
	var imports int
	var bodies []int
	names := map[int]string{}
	dataBytes := 0
	for i := 8; i < len(b); {
		id := b[i]
		size, n := uleb(b[i+1:])
		start := i + 1 + n
		end := start + int(size)
		sec := b[start:end]
		switch id {
		case 2: // imports: count the functions, which come first in the index space
			cnt, k := uleb(sec)
			for range cnt {
				for range 2 {
					l, m := uleb(sec[k:])
					k += m + int(l)
				}
				kind := sec[k]
				k++
				switch kind {
				case 0:
					_, m := uleb(sec[k:])
					k += m
					imports++
				case 1:
					k++
					fallthrough
				case 2:
					flags := sec[k]
					_, m := uleb(sec[k+1:])
					k += 1 + m
					if flags&1 != 0 {
						_, m = uleb(sec[k:])
						k += m
					}
				case 3:
					k += 2
				}
			}
		case 10: // code
			cnt, k := uleb(sec)
			for range cnt {
				l, m := uleb(sec[k:])
				bodies = append(bodies, int(l))
				k += m + int(l)
			}
		case 11:
			dataBytes += int(size)
		case 0:
			l, m := uleb(sec)
			if string(sec[m:m+int(l)]) == "name" {
				readNames(sec[m+int(l):], names)
			}
		}
		i = end
	}
	if len(names) == 0 {
		return errors.New("no name section: build without -ldflags=-s")
	}
	perPkg := map[string]int{}
	code, ours := 0, 0
	for i, sz := range bodies {
		code += sz
		// The name section spells "/" as "_": undo it for display.
		p := strings.ReplaceAll(pkgRE.FindStringSubmatch(names[imports+i])[1], "_", "/")
		if strings.HasPrefix(p, own) {
			ours += sz
			p = strings.TrimPrefix(p, own)
		}
		perPkg[p] += sz
	}
	pkgs := make([]string, 0, len(perPkg))
	for p := range perPkg {
		pkgs = append(pkgs, p)
	}
	sort.Slice(pkgs, func(i, j int) bool { return perPkg[pkgs[i]] > perPkg[pkgs[j]] })
	fmt.Printf("  code %d bytes (toolerr's own packages %d), data %d bytes\n", code, ours, dataBytes)
	for _, p := range pkgs[:min(rows, len(pkgs))] {
		fmt.Printf("  %9d  %5.1f%%  %s\n", perPkg[p], 100*float64(perPkg[p])/float64(code), p)
	}
	if funcs > 0 {
		idx := make([]int, len(bodies))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(i, j int) bool { return bodies[idx[i]] > bodies[idx[j]] })
		fmt.Println("  largest functions:")
		for _, i := range idx[:min(funcs, len(idx))] {
			fmt.Printf("  %9d  %s\n", bodies[i], names[imports+i])
		}
	}
	return nil
}

// readNames fills names from the function-names subsection of a name section.
func readNames(sec []byte, names map[int]string) {
	for k := 0; k < len(sec); {
		sub := sec[k]
		size, m := uleb(sec[k+1:])
		body := sec[k+1+m : k+1+m+int(size)]
		if sub == 1 {
			cnt, j := uleb(body)
			for range cnt {
				idx, a := uleb(body[j:])
				l, c := uleb(body[j+a:])
				names[int(idx)] = string(body[j+a+c : j+a+c+int(l)])
				j += a + c + int(l)
			}
		}
		k += 1 + m + int(size)
	}
}

// uleb decodes an unsigned LEB128 number and returns it with its length.
func uleb(b []byte) (uint64, int) {
	var v uint64
	for i, x := range b {
		v |= uint64(x&0x7f) << (7 * i)
		if x < 0x80 {
			return v, i + 1
		}
	}
	return v, len(b)
}
