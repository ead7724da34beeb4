"""What counts as valid text in an input: Unicode that can be written back as UTF-8.

JSON can spell a lone surrogate (`"\\ud800"`) or a NUL (`"\\u0000"`), and a file can hold bytes
that are not UTF-8; none of these is text a person wrote, and each breaks something later (a
tokenizer, SQLite, matplotlib, a UTF-8 writer). Readers refuse them where they read them, with
`FILE:LINE: query is not valid text (...)`.
"""

from __future__ import annotations

#: The longest text value read anywhere (a query, a name, an option's value): longer is a
#: pasted file or a mistake, and would make every matching step slow.
MAX_TEXT_CHARS = 2000


def text_problem(value: str) -> str | None:
    """Why `value` is not valid text, or None when it is.

    >>> text_problem("a dog"), text_problem("a \\ud800"), text_problem("a\\x00b")
    (None, 'a lone surrogate U+D800 at character 3', 'a NUL character at character 2')
    """
    nul = value.find("\x00")
    if nul >= 0:
        return f"a NUL character at character {nul + 1}"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"a lone surrogate U+{ord(value[exc.start]):04X} at character {exc.start + 1}"
    return None


def undecodable(data: bytes) -> tuple[int, str] | None:
    """The line (from 1) and reason of the first byte that is not UTF-8, or None.

    >>> undecodable(b"ok\\nbad \\xff\\n")
    (2, 'byte 0xff is not UTF-8')
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return line, f"byte 0x{data[exc.start]:02x} is not UTF-8"
    return None
