#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Validate a KCIDB I/O document against a JSON schema with the
jsonschema package (Debian's python3-jsonschema, lab/deps.sh installs it).

    tests/kcidb_validate.py SCHEMA DOCUMENT

Exit 0 valid, 1 invalid (each error printed with its JSON path), 2 usage
or unreadable files. tests/test_export.c runs it on `wblab export
--kcidb` of real cells, with ../shared/kcidb/kcidb-v5.3.schema.json.
"""
import json
import sys

import jsonschema


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1]) as f:
            schema = json.load(f)
        with open(sys.argv[2]) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f'kcidb_validate: {e}', file=sys.stderr)
        return 2
    cls = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft202012Validator)
    cls.check_schema(schema)
    v = cls(schema, format_checker=cls.FORMAT_CHECKER)
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors:
        path = '.'.join(str(p) for p in e.path)
        print(f'{sys.argv[2]}: {path or "(top)"}: {e.message}')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
