"""The gRPC surface: servicers, interceptors, error mapping, auth and the server."""
