"""Start-up checks of the workflow configuration beyond what the JSON schema says.

JSON Schema counts ``1000.0`` as an integer, so ``--config seed=1e3`` validates and then fails
late as ``invalid int value: '1000.0'``; :func:`integers_as_int` turns such values into ints
wherever the schema asks for an integer. :func:`check_yaml_file` names the file and line of a
config file that is not valid YAML (Snakemake's own message names neither).
:func:`check_results_dir` refuses a ``results_dir`` that cannot be a directory before Snakemake
looks inside it.
"""

from __future__ import annotations

import os
from typing import Any

import yaml

from kernbench.errors import KernbenchError


class ConfigError(KernbenchError):
    """A configuration file or value that cannot be used."""


def load_yaml(stream) -> Any:
    """``yaml.safe_load`` through libyaml's parser where PyYAML has it (about ten times faster).

    Parameters
    ----------
    stream : str or file
        The YAML text.

    Returns
    -------
    object
        The document, as ``yaml.safe_load`` gives it.
    """
    return yaml.load(stream, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def check_yaml_file(path: str | os.PathLike) -> dict:
    """Parse a YAML config file, naming the file and line of a syntax error.

    Parameters
    ----------
    path
        The config file.

    Returns
    -------
    dict
        Its content.

    Raises
    ------
    ConfigError
        If the file is not valid YAML or its top level is not a mapping.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            content = load_yaml(handle)
    except yaml.YAMLError as exc:
        mark, context = getattr(exc, "problem_mark", None), getattr(exc, "context_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        if context is not None and mark is not None and context.line != mark.line:
            where += f" (in the value that starts on line {context.line + 1})"
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"config file {os.path.abspath(path)}:{where}: not valid YAML ({problem})") from exc
    if not isinstance(content, dict):
        raise ConfigError(f"config file {path}: the top level must be a mapping of keys, not {type(content).__name__}")
    return content


def _resolve(schema: dict, root: dict) -> dict:
    while isinstance(schema, dict) and "$ref" in schema:
        target = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _map_values(value: Any, schema: Any, root: dict, leaf) -> Any:
    """Copy ``value``, following the schema into mappings and lists; ``leaf(value, schema)`` gives each other value.

    Keys the schema neither lists nor covers by an ``additionalProperties`` schema are copied as they are.
    """
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        return {
            k: _map_values(v, properties[k] if k in properties else extra, root, leaf)
            if k in properties or isinstance(extra, dict)
            else v
            for k, v in value.items()
        }
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_map_values(v, schema["items"], root, leaf) for v in value]
    return leaf(value, schema)


def integers_as_int(value: Any, schema: dict, root: dict | None = None) -> Any:
    """Return ``value`` with every integral float the schema types as ``integer`` turned into an int.

    Parameters
    ----------
    value
        A validated config value (the whole config at the top).
    schema
        Its JSON schema (``properties``, ``additionalProperties``, ``items`` and local ``$ref`` are followed).
    root
        The top-level schema ``$ref`` resolves against; ``schema`` itself by default.

    Returns
    -------
    Any
        A copy of ``value`` with the conversions made.
    """

    def leaf(v, sub):
        return int(v) if isinstance(v, float) and sub.get("type") == "integer" and v.is_integer() else v

    return _map_values(value, schema, schema if root is None else root, leaf)


def _types(schema: dict) -> set[str]:
    kind = schema.get("type")
    return set(kind) if isinstance(kind, list) else {kind} if kind else set()


def _parse_scalar(text: str, types: set[str]) -> Any:
    try:
        value = load_yaml(text)
    except yaml.YAMLError:
        return text
    if isinstance(value, str) and types & {"number", "integer"}:
        try:  # YAML 1.1 reads 1e3 (no dot) as a string
            return float(text)
        except ValueError:
            return text
    return value


def typed_overrides(value: Any, schema: dict, root: dict | None = None) -> Any:
    """Give ``--config`` values nested in sections the types the schema asks for.

    Snakemake reads ``--config anygram="{lam: 0.5}"`` with YAML's base loader, so every nested
    scalar arrives as a string (``'0.5'``, ``'false'``). Each string whose place in the schema is
    typed, and not as a string, is read again as YAML; anything that still does not fit is left for
    the schema to reject, naming the key.

    Parameters
    ----------
    value
        The ``--config`` overrides (the whole mapping at the top).
    schema
        The config's JSON schema.
    root
        The top-level schema ``$ref`` resolves against; ``schema`` itself by default.

    Returns
    -------
    Any
        A copy of ``value`` with the strings converted.
    """

    def leaf(v, sub):
        types = _types(sub)
        return _parse_scalar(v, types) if isinstance(v, str) and types and "string" not in types else v

    return _map_values(value, schema, schema if root is None else root, leaf)


def check_results_dir(path: str | os.PathLike) -> None:
    """Refuse a ``results_dir`` that is, or lies under, an existing file other than a directory.

    Parameters
    ----------
    path
        The config's ``results_dir``.

    Raises
    ------
    ConfigError
        Naming the key, the value and the file in the way.
    """
    if not str(path).strip():
        raise ConfigError("config: results_dir is empty; give the directory the results are written to")
    current = os.path.abspath(path)
    while True:
        if os.path.lexists(current) and not os.path.isdir(current):
            where = "is" if current == os.path.abspath(path) else f"lies under {current!r}, which is"
            raise ConfigError(
                f"config: results_dir={str(path)!r} {where} an existing file, not a directory; "
                "give a directory (or a path that does not exist yet)"
            )
        parent = os.path.dirname(current)
        if parent == current:
            return
        current = parent


def check_names(config: dict, key: str, valid, what: str) -> None:
    """Refuse a config value (or list of values) that is not one of the names a registry declares.

    The schema checks types and bounds; the names valid for a key (systems, datasets, tables) come
    from the registry that owns them, as scikit-learn validates a kernel name against
    ``PAIRWISE_KERNEL_FUNCTIONS``.

    Parameters
    ----------
    config : dict
        The workflow config.
    key : str
        Dotted path of the key (``"anygram.svm_systems"``); a missing key is not checked. A mapping's keys
        are checked (``lstm.hyperparameters``: one entry per dataset).
    valid : iterable of str
        The names the registry declares.
    what : str
        What the names are, for the message (``"any-gram kernel systems"``).

    Raises
    ------
    ConfigError
        Naming the key, each unknown value and the valid names.
    """
    value = config
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            return
        value = value[part]
    values = list(value) if isinstance(value, (list, dict)) else [value]
    valid = list(valid)
    unknown = [v for v in values if v not in valid]
    if unknown:
        raise ConfigError(
            f"config: {key} names {', '.join(map(repr, unknown))}, not one of the {what} "
            f"({', '.join(valid)})"
        )
