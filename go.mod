module github.com/toolerr/toolerr

go 1.26
