# Raw files: mirror first, else the registered https downloads; sha256-verified either way. One rule per dataset,
# so each rule declares exactly the files it writes.
for _dataset in CATALOG.names(builtin=True):

    rule:
        name:
            f"fetch_{_dataset}"
        output:
            raw_files(_dataset),
        params:
            dataset=_dataset,
            mirror=config["data"]["mirror"],
            raw_dir=lambda wildcards, output, dataset=_dataset: raw_root(output, dataset),
            download="" if config["data"]["download"] else "--no-download",
            timeout=config["data"]["timeout_s"],
        log:
            f"{LOGS}/fetch/{_dataset}.log",
        benchmark:
            f"{BENCHMARKS}/fetch/fetch/{_dataset}.tsv"
        conda:
            CONDA_ENV
        priority: 2  # the data first: every chain starts from it
        threads: 1
        resources:
            mem_mb=500,
            runtime=30,
        shell:
            "kernbench fetch {params.dataset} --mirror {params.mirror:q} --raw-dir {params.raw_dir:q} "
            "{params.download} --timeout {params.timeout} > {log:q} 2>&1"


# A catalog dataset's file is copied from where its entry says (not from the mirror, which the command still takes)
# and checked against the entry's sha256. The digest is a param: a new one fetches (and prepares) again; a changed
# file under the old digest stops the fetch.
for _entry in CATALOG.entries.values():

    rule:
        name:
            f"fetch_{_entry.name}"
        output:
            raw_files(_entry.name),
        params:
            dataset=_entry.name,
            sha256=_entry.sha256,
            mirror=config["data"]["mirror"],
            raw_dir=lambda wildcards, output, dataset=_entry.name: raw_root(output, dataset),
        log:
            f"{LOGS}/fetch/{_entry.name}.log",
        benchmark:
            f"{BENCHMARKS}/fetch/fetch/{_entry.name}.tsv"
        conda:
            CONDA_ENV
        priority: 2
        threads: 1
        resources:
            mem_mb=500,
            runtime=30,
        shell:
            "kernbench fetch {params.dataset} --mirror {params.mirror:q} --raw-dir {params.raw_dir:q} --no-download "
            "> {log:q} 2>&1"


# Each dataset is prepared by the parser its registry entry names.
checkpoint prepare:
    input:
        lambda wc: raw_files(wc.dataset),
    output:
        f"{RESULTS}/prepared/{{dataset}}.parquet",
    params:
        raw_dir=lambda wildcards, input: raw_root(input, wildcards.dataset),
        dev_fraction=config["semeval14"]["dev_fraction"],
        seed=config["seed"],
        subsample=json.dumps(config["subsample"]) if config["subsample"] else "",
    log:
        f"{LOGS}/prepare/{{dataset}}.log",
    benchmark:
        f"{BENCHMARKS}/prepare/prepare/{{dataset}}.tsv"
    wildcard_constraints:
        dataset="|".join(CATALOG),
    conda:
        CONDA_ENV
    priority: 2
    threads: 1
    resources:
        mem_mb=2000,
        runtime=15,
    shell:
        "kernbench prepare {wildcards.dataset} --raw-dir {params.raw_dir:q} --out {output:q} "
        "--dev-fraction {params.dev_fraction} --seed {params.seed} --subsample={params.subsample:q} > {log:q} 2>&1"


rule embeddings:
    input:
        [prepared(d) for d in CATALOG.names(tokenised=True, builtin=True)],
    output:
        EMBEDDINGS,
    params:
        source=config["embeddings"]["source"],
        url=config["embeddings"].get(config["embeddings"]["source"], {}).get("url", ""),
        sha256=config["embeddings"].get(config["embeddings"]["source"], {}).get("sha256", ""),
        size=config["embeddings"].get(config["embeddings"]["source"], {}).get("size", 0),
        mirror=config["data"]["mirror"],
        raw_dir=lambda wildcards, output: os.path.join(os.path.dirname(os.path.dirname(output[0])), "raw"),
    log:
        f"{LOGS}/embeddings.log",
    benchmark:
        f"{BENCHMARKS}/embeddings/embeddings.tsv"
    conda:
        CONDA_ENV
    priority: 2  # the LSTMs and the any-gram Grams wait for it
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    shell:
        "kernbench embeddings --prepared {input:q} --source {params.source} --out {output:q} "
        "--url={params.url:q} --sha256={params.sha256:q} --size {params.size} --dim 300 "
        "--mirror {params.mirror:q} --raw-dir {params.raw_dir:q} > {log:q} 2>&1"


if CATALOG.names(tokenised=True, builtin=False):

    use rule embeddings as embeddings_catalog with:
        input:
            lambda wc: prepared(wc.dataset),
        output:
            catalog_embeddings("{dataset}"),
        log:
            f"{LOGS}/embeddings/{{dataset}}.log",
        benchmark:
            f"{BENCHMARKS}/embeddings/{{dataset}}.tsv"
        wildcard_constraints:
            dataset="|".join(CATALOG.names(tokenised=True, builtin=False)),
