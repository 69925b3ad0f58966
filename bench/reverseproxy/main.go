// Command reverseproxy is net/http's httputil.ReverseProxy alone, with the
// upstream Transport toolerr-gateway uses (http.DefaultTransport's
// settings, as many idle connections per host as in all): the floor under
// the gateway, for scripts/bench-gateway.sh to measure beside it
// (GATEWAY_BENCH_FLOOR=1 passes it as gatewaybench's -baseline-bin). It
// takes the two flags gatewaybench gives a gateway binary, serves
// /healthz, and passes every other request to -openai-base as it came: no
// request op, no error op, no metrics, no log.
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8787", "listen address (host:port)")
	base := flag.String("openai-base", "", "the upstream's base URL")
	flag.Parse()
	u, err := url.Parse(*base)
	if err != nil || u.Scheme == "" {
		fmt.Fprintln(os.Stderr, "reverseproxy: -openai-base must be a URL")
		os.Exit(2)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = t.MaxIdleConns
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(u) }, Transport: t, FlushInterval: -1}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	mux.Handle("/", proxy)
	fmt.Fprintln(os.Stderr, "reverseproxy:", http.ListenAndServe(*addr, mux))
	os.Exit(1)
}
