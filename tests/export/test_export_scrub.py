"""topology.py without the notebook's sample data and without its literal credentials."""

from __future__ import annotations

import pytest
from export_fixtures import notebook, read_notebook

from kslab.export._cells import select_cells
from kslab.export._scrub import env_var, is_secret_key, is_secret_name, split_secrets
from kslab.export._source import render_topology


def rendered(tmp_path, *cells):
    nb = read_notebook(notebook(tmp_path / "nb.ipynb", *cells))
    return render_topology(select_cells(nb), "nb.ipynb")


def body(text: str) -> list[str]:
    """The lines of build_topology() between its docstring and its return."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("def build_topology"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("    return "))
    return [line for line in lines[start + 2:end] if not line.startswith("    # -- notebook")]


SAMPLES = """\
import pandas as pd
import kslab as ks
seed = 3
rows = [1, 2, seed]
df = pd.DataFrame({"value": rows})
df["x"] = 1
df = df.reset_index(drop=True)
df.head()
"""
BUILD = """\
builder = ks.StreamsBuilder()
lines = builder.stream("a",
                       sample=df)
table = builder.table("t", sample=pd.DataFrame({"value": [1]}), materialized="m")
other = builder.global_table(sample=df, topic="g")
lines.to("b"); n = seed + 1
topology = builder.build()
"""


def test_sample_data_and_what_only_made_it_are_cut(tmp_path):
    source = rendered(tmp_path, SAMPLES, BUILD)
    assert body(source.text) == [
        "    seed = 3",  # `n` still reads it
        "    builder = ks.StreamsBuilder()",
        '    lines = builder.stream("a")',
        '    table = builder.table("t", materialized="m")',
        '    other = builder.global_table(topic="g")',
        '    lines.to("b"); n = seed + 1',
        "    topology = builder.build()",
    ]
    assert source.sample_cells == [1, 2]
    assert "import pandas" not in source.text  # nothing left uses it


def test_a_sample_frame_the_topology_reads_stays(tmp_path):
    source = rendered(tmp_path, "import pandas as pd\nimport kslab as ks\n"
                      "df = pd.DataFrame({'value': ['a']})\ncols = list(df.columns)",
                      'builder = ks.StreamsBuilder()\nbuilder.stream("a", sample=df)'
                      '.map_values(lambda v: cols).to("b")\ntopology = builder.build()')
    assert body(source.text) == [
        "    df = pd.DataFrame({'value': ['a']})",
        "    cols = list(df.columns)",
        "    builder = ks.StreamsBuilder()",
        '    builder.stream("a").map_values(lambda v: cols).to("b")',
        "    topology = builder.build()",
    ]
    assert "import pandas as pd" in source.text


SECRETS = """\
import kslab as ks
registry = {"url": "http://registry:8081", "basic.auth.user.info": "bob:pw-in-dict"}
registry["ssl.key.password"] = "pw-in-subscript"
api_token = "tok-in-variable"
tokenizer = "whitespace"
empty_password = ""
props = dict(client_secret="sec-in-keyword", note="not a secret")
jaas = {"consumer.sasl.jaas.config": f'... password="{api_token}-x";'}
builder = ks.StreamsBuilder()
builder.stream("a").to("b")
topology = builder.build()
"""


def test_literal_credentials_are_read_from_the_environment(tmp_path, monkeypatch):
    source = rendered(tmp_path, SECRETS)
    for secret in ("pw-in-dict", "pw-in-subscript", "tok-in-variable", "sec-in-keyword",
                   "-x"):
        assert secret not in source.text
    assert [(s.key, s.variable, s.where) for s in source.secrets] == [
        ("basic.auth.user.info", "KSLAB_BASIC_AUTH_USER_INFO", "cell 1"),
        ("ssl.key.password", "KSLAB_SSL_KEY_PASSWORD", "cell 1"),
        ("api_token", "KSLAB_API_TOKEN", "cell 1"),
        ("client_secret", "KSLAB_CLIENT_SECRET", "cell 1"),
        ("consumer.sasl.jaas.config", "KSLAB_CONSUMER_SASL_JAAS_CONFIG", "cell 1"),
    ]
    assert body(source.text)[:6] == [
        '    registry = {"url": "http://registry:8081", '
        '"basic.auth.user.info": _kslab_secret("KSLAB_BASIC_AUTH_USER_INFO")}',
        '    registry["ssl.key.password"] = _kslab_secret("KSLAB_SSL_KEY_PASSWORD")',
        '    api_token = _kslab_secret("KSLAB_API_TOKEN")',
        '    tokenizer = "whitespace"',  # a word of its own: no credential
        '    empty_password = ""',  # nothing to hide
        '    props = dict(client_secret=_kslab_secret("KSLAB_CLIENT_SECRET"), '
        'note="not a secret")',
    ]
    namespace: dict = {}
    monkeypatch.setenv("KSLAB_API_TOKEN", "from-env")
    exec(compile(source.text, "topology.py", "exec"), namespace)
    assert namespace["_kslab_secret"]("KSLAB_API_TOKEN") == "from-env"
    monkeypatch.delenv("KSLAB_API_TOKEN")
    with pytest.warns(UserWarning, match="KSLAB_API_TOKEN is not set"):
        assert namespace["_kslab_secret"]("KSLAB_API_TOKEN") == ""
    with pytest.warns(UserWarning) as unset:  # each credential the build reads, unset
        assert str(namespace["build_topology"]().describe()).startswith("Topologies:")
    assert [str(w.message).split()[0] for w in unset] == [
        "KSLAB_BASIC_AUTH_USER_INFO", "KSLAB_SSL_KEY_PASSWORD", "KSLAB_API_TOKEN",
        "KSLAB_CLIENT_SECRET", "KSLAB_CONSUMER_SASL_JAAS_CONFIG"]


@pytest.mark.parametrize(("key", "secret"), [
    ("sasl.password", True), ("sasl.jaas.config", True), ("ssl.key.password", True),
    ("ssl.keystore.password", True), ("basic.auth.user.info", True),
    ("sasl.oauthbearer.client.secret", True), ("producer.sasl.jaas.config", True),
    ("ssl.truststore.password", True), ("my.api.TOKEN", True), ("client_secret", True),
    ("sasl.mechanism", False), ("ssl.keystore.location", False), ("bootstrap.servers", False),
    ("jaas.config", False), ("user.info", False)])
def test_which_keys_name_credentials(key, secret):
    assert is_secret_key(key) is secret


@pytest.mark.parametrize(("name", "secret"), [
    ("api_token", True), ("clientSecret", True), ("DB_PASSWORD", True), ("token", True),
    ("tokenizer", False), ("secretary", False), ("passwords_seen", False), ("topic", False)])
def test_which_python_names_hold_credentials(name, secret):
    assert is_secret_name(name) is secret


def test_a_driver_config_loses_its_credentials():
    kept, gone = split_secrets({"application.id": "a", "sasl.password": "p",
                                "consumer.ssl.key.password": "k"}, "driver session 1's config")
    assert kept == {"application.id": "a"}
    assert [(s.key, s.variable) for s in gone] == [
        ("sasl.password", "KSLAB_SASL_PASSWORD"),
        ("consumer.ssl.key.password", "KSLAB_CONSUMER_SSL_KEY_PASSWORD")]
    assert env_var("my-api.token") == "KSLAB_MY_API_TOKEN"
