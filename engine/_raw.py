"""The raw form of a rules core's state: its C struct as a dict of plain ints and lists.

Both cores view their struct through a NumPy structured dtype derived from the C
declaration (scikit-learn's NODE_DTYPE trick): one field per member, in declaration
order, a 2-D member as a subarray field. These two functions convert between such a
1-element array and the dict, so a core only supplies the array.
"""

from __future__ import annotations

import numpy as np


def _fields(dtype: np.dtype) -> dict[str, np.dtype]:
    """Each member's (sub)array dtype by name, in declaration order."""
    assert dtype.names is not None and dtype.fields is not None, "a struct's dtype"
    return {name: dtype.fields[name][0] for name in dtype.names}


def struct_to_raw(array: np.ndarray, dtype: np.dtype) -> dict:
    """Every field of the struct as plain Python ints and (nested) lists, keyed by the
    member names in declaration order."""
    values = array.tolist()[0]  # subarray fields come back as ndarrays
    return {
        name: value.tolist() if field.shape else value
        for (name, field), value in zip(_fields(dtype).items(), values, strict=True)
    }


def raw_to_struct(raw: dict, array: np.ndarray, dtype: np.dtype) -> None:
    """Write `raw` into the (zeroed) struct viewed by `array`. The keys must be exactly the
    struct's members and each value must fit its member (shape and integer range);
    ValueError or TypeError naming the field otherwise."""
    fields = _fields(dtype)
    if raw.keys() != fields.keys():
        missing = sorted(fields.keys() - raw.keys())
        unknown = sorted(map(str, raw.keys() - fields.keys()))
        raise ValueError(f"raw state: missing fields {missing}, unknown fields {unknown}")
    for name in fields:
        try:
            array[name][0] = raw[name]
        except (ValueError, TypeError, OverflowError) as e:
            raise type(e)(f"raw state: {name}: {e}") from None
    # NumPy casts and broadcasts what it writes (1.5 -> 1, a scalar or a 1-element list ->
    # every entry): refuse any value that does not read back as given.
    back = struct_to_raw(array, dtype)
    if back != raw:
        name = next(n for n in fields if back[n] != raw[n])
        field = fields[name]
        raise ValueError(
            f"raw state: {name}: {raw[name]!r} does not fit the struct's "
            f"{field.base} field of shape {field.shape}"
        )
