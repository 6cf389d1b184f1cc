"""Export never copies a secret: not into topology.py, config.toml, the fixtures or the image."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest
from export_fixtures import load_module, notebook

from kslab.export import export_notebook

CODE = """\
import kslab as ks
registry = {"url": "http://registry:8081", "basic.auth.user.info": "reg:Zq7-basic-auth"}
api_token = "Zq7-token"
builder = ks.StreamsBuilder()
builder.stream("in", key_serde="string", value_serde="string").map_values(str.upper).to("out")
topology = builder.build()
"""
DRIVER = """\
config = {"application.id": "vault", "sasl.password": "Zq7-sasl-pw",
          "sasl.jaas.config": 'PlainLoginModule required username="u" password="Zq7-jaas";',
          "ssl.key.password": "Zq7-key-pw", "ssl.keystore.password": "Zq7-store-pw",
          "sasl.oauthbearer.client.secret": "Zq7-oauth",
          "consumer.sasl.password": "Zq7-consumer-pw", "commit.interval.ms": 100}
with ks.TopologyTestDriver(topology, config) as driver:
    driver.create_input_topic("in").pipe_input("k", "hello", 5)
"""
SECRETS = ["Zq7-basic-auth", "Zq7-token", "Zq7-sasl-pw", "Zq7-jaas", "Zq7-key-pw",
           "Zq7-store-pw", "Zq7-oauth", "Zq7-consumer-pw"]
FROM_DRIVER = {"sasl.password": "KSLAB_SASL_PASSWORD",
               "sasl.jaas.config": "KSLAB_SASL_JAAS_CONFIG",
               "ssl.key.password": "KSLAB_SSL_KEY_PASSWORD",
               "ssl.keystore.password": "KSLAB_SSL_KEYSTORE_PASSWORD",
               "sasl.oauthbearer.client.secret": "KSLAB_SASL_OAUTHBEARER_CLIENT_SECRET",
               "consumer.sasl.password": "KSLAB_CONSUMER_SASL_PASSWORD"}


@pytest.mark.slow
def test_no_secret_reaches_the_exported_app(tmp_path):
    path = notebook(tmp_path / "vault.ipynb", CODE, DRIVER)
    out = tmp_path / "app"
    result = export_notebook(path, out)
    assert result.sessions == 1
    for file in out.rglob("*"):  # the whole build context: docker copies from here
        if file.is_file():
            data = file.read_bytes()
            assert not [s for s in SECRETS if s.encode() in data], file
            if file.suffix == ".whl":
                with zipfile.ZipFile(file) as wheel:
                    for member in wheel.namelist():
                        body = wheel.read(member)
                        assert not [s for s in SECRETS if s.encode() in body], member
    summary = result.summary().splitlines()
    assert summary[3:5] == [
        "left out the credential `basic.auth.user.info` (cell 1): the app reads "
        "$KSLAB_BASIC_AUTH_USER_INFO",
        "left out the credential `api_token` (cell 1): the app reads $KSLAB_API_TOKEN"]
    assert [line for line in summary if "driver session 1's config" in line] == [
        f"left out the credential `{key}` (driver session 1's config): the app reads ${var}"
        for key, var in FROM_DRIVER.items()]
    config = (out / "config.toml").read_text()
    for key, var in FROM_DRIVER.items():
        assert f'"{key}" = {{ env = "{var}" }}' in config
        assert f"| `{var}` | `{key}` | driver session 1's config |" in \
            (out / "README.md").read_text()
    assert '"commit.interval.ms" = 100' in config
    fixture = (out / "tests/fixtures/session-01.json").read_text()
    assert '"config": {"application.id": "vault", "commit.interval.ms": 100},' in fixture

    app = load_module(out / "app.py")
    env = {var: f"from-env-{n}" for n, var in enumerate(FROM_DRIVER.values())}
    loaded = app.load_config(out / "config.toml", env)
    assert {key: loaded[key] for key in FROM_DRIVER} == {
        key: env[var] for key, var in FROM_DRIVER.items()}
    refused = subprocess.run([sys.executable, str(out / "app.py")], capture_output=True,
                             text=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
    assert refused.returncode == 2
    assert ("config.toml reads credentials from the environment: set KSLAB_SASL_PASSWORD "
            "(for sasl.password), KSLAB_SASL_JAAS_CONFIG (for sasl.jaas.config)") in \
        refused.stderr
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "tests"], cwd=out, capture_output=True, text=True, timeout=300)
    assert tests.stdout.splitlines()[-1].startswith("2 passed"), tests.stdout + tests.stderr


def test_kslab_run_reads_a_credential_reference_from_the_environment(tmp_path):
    from kslab.cli._common import CliError
    from kslab.cli._config import load_config

    file = tmp_path / "config.toml"
    file.write_text('"application.id" = "a"\n"sasl.password" = { env = "PW" }\n'
                    '[consumer]\n"session.timeout.ms" = 6000\n')
    assert load_config(file, {}, {"PW": "p"}) == {
        "application.id": "a", "sasl.password": "p", "consumer.session.timeout.ms": 6000}
    with pytest.raises(CliError, match=r"reads credentials from the environment: set PW "
                                       r"\(for sasl\.password\)"):
        load_config(file, {}, {})


def test_a_shipped_module_holding_a_credential_is_refused(tmp_path):
    from kslab.export import ExportError

    (tmp_path / "creds.py").write_text('"""Settings."""\nGROUP = "g"\nDB_PASSWORD = "Zq7-mod"\n')
    path = notebook(tmp_path / "nb.ipynb", "import creds\ngroup = creds.GROUP\n" + CODE)
    with pytest.raises(ExportError) as refused:
        export_notebook(path, tmp_path / "app", execute=False)
    assert str(refused.value) == (
        "nb.ipynb imports creds.py, which export copies into the app, and creds.py line 3 gives "
        '`DB_PASSWORD` a literal value; read it from the environment instead '
        '(os.environ["KSLAB_DB_PASSWORD"]) so no secret is copied')
    assert not (tmp_path / "app").exists()
