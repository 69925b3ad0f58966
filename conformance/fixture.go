package conformance

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// File is one fixture file, fixtures/<op>/<topic>.json: a list of cases.
type File struct {
	// Path is the file's path relative to the fixtures dir, with "/" separators.
	Path string
	// Name is Path without ".json" ("classify/http-status"), the first part of every ID.
	Name  string
	Cases []Case
}

// Case is a group of tests that share one subject.
type Case struct {
	Description string   `json:"description"`
	Comment     string   `json:"comment,omitempty"`
	Source      []string `json:"source"`
	Tests       []Test   `json:"tests"`
}

// Test is one request and the response core.Invoke returns for it. Request
// and Response keep the file's raw bytes: runners feed Request unchanged.
type Test struct {
	Description string          `json:"description"`
	Comment     string          `json:"comment,omitempty"`
	Request     json.RawMessage `json:"request"`
	Response    json.RawMessage `json:"response"`
}

// Fixture is one test with its ID, ready to run.
type Fixture struct {
	// ID is <op>/<topic>/<case>/<test>, descriptions with spaces as "_": the
	// same string as the subtest name under each target.
	ID   string
	File string // File.Name
	Test Test
}

// Slug turns a description into an ID segment the way Go names subtests.
func Slug(description string) string { return strings.ReplaceAll(description, " ", "_") }

// LoadFiles reads every *.json file under dir (recursively), in path order.
func LoadFiles(dir string) ([]File, error) {
	var files []File
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f := File{Path: rel, Name: strings.TrimSuffix(rel, ".json")}
		if err := json.Unmarshal(data, &f.Cases); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		files = append(files, f)
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, err
}

// Fixtures flattens files into fixtures with their IDs, in file order.
func Fixtures(files []File) []Fixture {
	var out []Fixture
	for _, f := range files {
		for _, c := range f.Cases {
			for _, t := range c.Tests {
				id := f.Name + "/" + Slug(c.Description) + "/" + Slug(t.Description)
				out = append(out, Fixture{ID: id, File: f.Name, Test: t})
			}
		}
	}
	return out
}
