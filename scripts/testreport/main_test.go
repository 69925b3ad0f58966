package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadGoJSON_countsAndSkipReasons(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    real_test.go:26: recordings not found at ../shared\n"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"    x_test.go:9: want 1, got 2\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestC"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.01s\n"}`,
		`not json: a build error`,
	}, "\n")
	var out bytes.Buffer
	r, err := readGoJSON("go", strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Passed != 1 || r.Failed != 1 || r.Skipped != 1 {
		t.Fatalf("counts = %d/%d/%d, want 1/1/1", r.Passed, r.Failed, r.Skipped)
	}
	if len(r.Skips) != 1 || r.Skips[0].Name != "p TestB" || r.Skips[0].Reason != "recordings not found at ../shared" {
		t.Fatalf("skips = %+v", r.Skips)
	}
	want := "    x_test.go:9: want 1, got 2\nFAIL\tp\t0.01s\nnot json: a build error\n"
	if out.String() != want {
		t.Fatalf("printed %q, want %q", out.String(), want)
	}
}

func TestReadJUnit_nestedSuitesAndSkips(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.xml")
	xml := `<testsuites><testsuite name="s"><testcase name="a" classname="t"/>` +
		`<testcase name="b" classname="t"><skipped message="needs /proc (Linux)"/></testcase>` +
		`<testcase name="c" classname="t"><failure message="x"/></testcase>` +
		`<testsuite name="inner"><testcase name="d" classname="t"/></testsuite></testsuite></testsuites>`
	if err := os.WriteFile(p, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := readJUnit("python", p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Passed != 2 || r.Failed != 1 || r.Skipped != 1 || r.Skips[0].Reason != "needs /proc (Linux)" {
		t.Fatalf("got %+v", r)
	}
}

func TestReadCargo_sumsEveryTestBinary(t *testing.T) {
	in := "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured\n" +
		"test redis::shared ... ignored, needs redis-server\n" +
		"test result: FAILED. 5 passed; 1 failed; 1 ignored; 0 measured\n"
	var out bytes.Buffer
	r, err := readCargo("rust", strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Passed != 8 || r.Failed != 1 || r.Skipped != 1 || r.Skips[0] != (skip{"redis::shared", "needs redis-server"}) {
		t.Fatalf("got %+v", r)
	}
	if out.String() != in {
		t.Fatal("cargo output is not passed through unchanged")
	}
}
