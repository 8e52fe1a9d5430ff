"""Generated gRPC stubs of the council.v1 API (built from the .proto files beside this file
by setup.py's build_py hook; the *_pb2*.py files are not kept in git)."""
