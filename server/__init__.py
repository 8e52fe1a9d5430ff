"""The council.v1 service (gRPC, and the Connect protocol over HTTP with its web page), its
client, and the council-ai command line; the ladder (council.ladder) and training
(council.learning) are packages of their own."""
