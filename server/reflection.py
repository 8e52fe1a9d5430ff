"""Server reflection in both versions clients ask for: ``grpc.reflection.v1`` (grpcurl,
Postman's newer versions, grpc-java's deprecation of the other) and
``grpc.reflection.v1alpha``.

grpcio-reflection implements only v1alpha (grpc/grpc#38576). The two protocols are the same
messages under another package name, so the v1 service is the same servicer, reading and
writing the v1alpha messages; its file descriptor (the v1alpha one renamed) is added to the
descriptor pool so that reflection describes it too.
"""

from __future__ import annotations

import contextlib
import importlib

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2

__all__ = ["SERVICE_NAMES", "enable"]

_V1_FILE = "grpc/reflection/v1/reflection.proto"
_ALPHA = reflection_pb2.DESCRIPTOR.package  # grpc.reflection.v1alpha
_V1 = "grpc.reflection.v1"
SERVICE_NAMES = (f"{_V1}.ServerReflection", reflection.SERVICE_NAME)


def _add_v1_descriptor(pool) -> None:
    """Add grpc/reflection/v1/reflection.proto to `pool` (once): v1alpha's file renamed,
    unless a grpcio-reflection that ships v1 has registered the real one."""
    with contextlib.suppress(ImportError):
        importlib.import_module("grpc_reflection.v1.reflection_pb2")
    try:
        pool.FindFileByName(_V1_FILE)
        return
    except KeyError:
        pass
    file = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(file)
    file.name, file.package = _V1_FILE, _V1
    file.ClearField("options")
    old, new = f".{_ALPHA}.", f".{_V1}."
    for message in file.message_type:
        for field in message.field:
            if field.type_name.startswith(old):
                field.type_name = new + field.type_name[len(old) :]
    for service in file.service:
        for method in service.method:
            method.input_type = new + method.input_type[len(old) :]
            method.output_type = new + method.output_type[len(old) :]
    pool.AddSerializedFile(file.SerializeToString())


def enable(service_names, server: grpc.Server) -> None:
    """Serve reflection v1 and v1alpha on `server`, listing `service_names` and both
    reflection services."""
    _add_v1_descriptor(descriptor_pool.Default())
    servicer = reflection.ReflectionServicer((*service_names, *SERVICE_NAMES))
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        [
            grpc.method_handlers_generic_handler(service, {"ServerReflectionInfo": handler})
            for service in SERVICE_NAMES
        ]
    )
