"""The council.v1 gRPC service, the AI-vs-AI ladder and the council-ai command line."""
