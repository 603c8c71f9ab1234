"""The workflow config's JSON schema: the workflow's own keys and each paper's sections.

``workflow/schemas/config.schema.yaml`` describes the keys the papers share (``seed``, ``datasets``,
``baselines``, ...); each paper describes its own sections in a schema fragment of its package
(:attr:`kernbench.paper.Paper.config_schema`). The workflow validates the config against each of these
files with Snakemake's ``validate`` (which resolves a file's ``$ref`` against that file), after
:func:`check_top_level_keys` has refused a key that none of them describes. :func:`composed_schema`
joins them into one schema, which types ``--config`` values and integral floats
(:mod:`kernbench.config_check`) and which the tests validate against.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import yaml

from kernbench.config_check import ConfigError, load_yaml
from kernbench.paper import package_file


def _load(path: str | os.PathLike) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            schema = load_yaml(handle)
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"config schema {path}: cannot be read ({exc})") from exc
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        raise ConfigError(f"config schema {path}: not an object schema with `properties`")
    return schema


def fragment_path(paper) -> Path:
    """The file of a paper's config-schema fragment.

    Parameters
    ----------
    paper : kernbench.paper.Paper
        A paper whose ``config_schema`` is ``"package:file"``.

    Returns
    -------
    pathlib.Path
        The fragment's absolute path.

    Raises
    ------
    ConfigError
        If ``config_schema`` is not of that form or names no file of the package.
    """
    return package_file(paper.config_schema, f"paper {paper.name}: config_schema")


def fragment_paths(papers: dict) -> list[Path]:
    """The config-schema fragments of the papers that have one, in the registry's order.

    Parameters
    ----------
    papers : dict
        ``{name: Paper}``, as :data:`kernbench.papers.PAPERS`.

    Returns
    -------
    list of pathlib.Path
        One absolute path per paper with a ``config_schema``.
    """
    return [fragment_path(paper) for paper in papers.values() if paper.config_schema]


def _merge_definitions(into: dict, sources: dict, definitions: dict, source: str) -> None:
    for name, definition in definitions.items():
        if name in into and into[name] != definition:
            raise ConfigError(
                f"config schema {source}: definition {name!r} differs from the one in {sources[name]}; "
                "give it another name or make the two the same"
            )
        into.setdefault(name, definition)
        sources.setdefault(name, source)


def composed_schema(workflow_schema: str | os.PathLike, papers: dict) -> dict:
    """One JSON schema of the whole config: the workflow's and every paper's fragment, no other top-level key.

    Parameters
    ----------
    workflow_schema : path-like
        ``workflow/schemas/config.schema.yaml``.
    papers : dict
        ``{name: Paper}``, as :data:`kernbench.papers.PAPERS`.

    Returns
    -------
    dict
        The workflow schema with each fragment's ``properties``, ``required`` and ``definitions``
        added and ``additionalProperties: false`` at the top. A fragment's local ``$ref``
        (``#/definitions/...``) resolves in it as in the fragment.

    Raises
    ------
    ConfigError
        If a fragment's properties are not its paper's ``config_keys``, a key is described twice, or two
        files define one definition name differently; each message names the paper or file.
    """
    schema = copy.deepcopy(_load(workflow_schema))
    definitions = schema.setdefault("definitions", {})
    sources = dict.fromkeys(definitions, str(workflow_schema))
    owners = dict.fromkeys(schema["properties"], str(workflow_schema))
    required = list(schema.get("required", []))
    for paper in papers.values():
        if not paper.config_schema:
            if paper.config_keys:
                raise ConfigError(f"paper {paper.name}: config_keys {list(paper.config_keys)} without a config_schema")
            continue
        path = fragment_path(paper)
        fragment = _load(path)
        if sorted(fragment["properties"]) != sorted(paper.config_keys):
            raise ConfigError(
                f"config schema {path}: describes {sorted(fragment['properties'])}, but paper {paper.name} declares "
                f"config_keys {sorted(paper.config_keys)}"
            )
        for key, value in fragment["properties"].items():
            if key in owners:
                raise ConfigError(f"config schema {path}: key {key!r} is already described by {owners[key]}")
            owners[key] = str(path)
            schema["properties"][key] = copy.deepcopy(value)
        required += [key for key in fragment.get("required", []) if key not in required]
        _merge_definitions(definitions, sources, copy.deepcopy(fragment.get("definitions", {})), str(path))
    schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def check_top_level_keys(config: dict, schema: dict) -> None:
    """Refuse a top-level config key that the composed schema does not describe.

    Parameters
    ----------
    config : dict
        The workflow config.
    schema : dict
        The :func:`composed_schema`.

    Raises
    ------
    ConfigError
        Naming each unknown key and the keys the config may have.
    """
    unknown = [key for key in config if key not in schema["properties"]]
    if unknown:
        raise ConfigError(
            f"config: unknown key {', '.join(map(repr, unknown))}; the config's keys are those of the workflow and "
            f"of each paper's section ({', '.join(schema['properties'])})"
        )
