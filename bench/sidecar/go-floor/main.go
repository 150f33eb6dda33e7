// The floor of bench/sidecar/http-layer.ts: Go's net/http answering every request with one
// fixed JSON body (any request body read first), on 127.0.0.1:$PORT. Standard library only.
package main

import (
	"io"
	"net/http"
	"os"
	"strconv"
)

func main() {
	body := []byte(`{"key":"flag-00001","reason":"STATIC","value":42}`)
	length := strconv.Itoa(len(body))
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h := w.Header()
		h["Content-Type"] = []string{"application/json; charset=utf-8"}
		h["Content-Length"] = []string{length}
		_, _ = w.Write(body)
	})
	if err := http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), handler); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}
