module svc.local/bench/go-floor

go 1.26
