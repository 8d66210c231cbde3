"""Every core error arrives as the Python exception of its kind, with the command line's message."""
import json

import neurarch
import pytest

from conftest import REPO


def expect(kind, builtin, cli, call, *cli_args, stdin=None, origin=None):
    """`origin`: what the binding names the config where the command line says <stdin>."""
    with pytest.raises(kind) as raised:
        call()
    error = raised.value
    assert isinstance(error, neurarch.Error) and isinstance(error, builtin)
    run = cli(*cli_args, stdin=stdin)
    assert run.returncode == error.exit_code
    expected = run.stderr.replace("<stdin>", origin) if origin else run.stderr
    assert expected == f"neurarch-trace: error: {error}\n"
    return error


def test_a_model_that_is_nowhere_is_not_found(cli):
    error = expect(neurarch.NotFound, LookupError, cli, lambda: neurarch.trace("no-such-org/no-such-model"),
                   "no-such-org/no-such-model")
    assert error.exit_code == 3


def test_an_unknown_model_type_is_unsupported(cli):
    config = {"model_type": "no-such-architecture", "hidden_size": 8}
    error = expect(neurarch.Unsupported, neurarch.Error, cli, lambda: neurarch.trace(config), "-",
                   stdin=json.dumps(config), origin="<dict>")
    assert "no-such-architecture" in str(error)


def test_malformed_json_is_invalid_input_naming_the_file_and_position(cli, tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text('{"model_type": "gpt2",\n "n_layer": }')
    error = expect(neurarch.InvalidInput, ValueError, cli, lambda: neurarch.trace(bad), str(bad))
    assert error.where.startswith(str(bad))
    assert str(error).startswith(str(bad))


def test_an_absurd_config_is_invalid_input(cli):
    config = json.loads((REPO / "data" / "catalogue" / "gpt2.json").read_text())
    config["n_layer"] = -1
    error = expect(neurarch.InvalidInput, ValueError, cli, lambda: neurarch.trace(config), "-",
                   stdin=json.dumps(config), origin="<dict>")
    assert "n_layer" in str(error)


def test_an_unreadable_config_is_an_io_error(cli):
    # Root reads any file; /proc/self/mem opens but refuses the read at offset 0.
    expect(neurarch.IoError, OSError, cli, lambda: neurarch.trace("/proc/self/mem"), "/proc/self/mem")


@pytest.mark.parametrize("options, flags", [
    ({"attention": "flash"}, None),
    ({"optimizer": "lion"}, None),
    ({"batch": 0}, ["--batch", "0"]),
    ({"lora_rank": 0}, ["--lora-rank", "0"]),
    ({"lora_dropout": 1.5}, ["--lora-dropout", "1.5"]),
    ({"epochs": 0}, ["--epochs", "0"]),
])
def test_planner_options_that_make_no_sense_are_invalid_input(cli, options, flags):
    with pytest.raises(neurarch.InvalidInput) as raised:
        neurarch.trace("gpt2", **options)
    assert list(options)[0] in str(raised.value).replace("-", "_")
    if flags:  # the command line's own parser refuses the others before the core sees them
        run = cli("gpt2", "--plan", *flags)
        assert run.stderr == f"neurarch-trace: error: {raised.value}\n"
    with pytest.raises(neurarch.InvalidInput):
        neurarch.trace("gpt2").plan(**options)


def test_an_unknown_card_is_not_found(cli):
    expect(neurarch.NotFound, LookupError, cli, lambda: neurarch.trace("gpt2", card="Z80"), "gpt2", "--plan",
           "--card", "Z80")


def test_plan_false_with_planner_options_is_a_contradiction():
    with pytest.raises(neurarch.InvalidInput, match="batch"):
        neurarch.trace("gpt2", plan=False, batch=4)


def test_keywords_are_checked_like_python_arguments():
    with pytest.raises(TypeError, match="unexpected keyword argument 'sequence'"):
        neurarch.trace("gpt2", sequence=128)
    with pytest.raises(TypeError, match="unexpected keyword argument 'seq'"):
        neurarch.trace("gpt2").plan(seq=128)  # seq shapes the graph: it belongs to trace()
    with pytest.raises(TypeError, match="seq: expected an int, got str"):
        neurarch.trace("gpt2", seq="128")
    with pytest.raises(TypeError, match="batch: expected an int, got bool"):
        neurarch.trace("gpt2", batch=True)
    with pytest.raises(TypeError, match="qlora: expected True or False"):
        neurarch.trace("gpt2", qlora=1)
    with pytest.raises(TypeError, match="lora_targets"):
        neurarch.trace("gpt2", lora_targets=[1, 2])
    with pytest.raises(TypeError):
        neurarch.trace(42)
    with pytest.raises(neurarch.InvalidInput, match="out of range"):
        neurarch.trace("gpt2", seq=2**80)


def test_a_config_json_cannot_hold_is_invalid_input():
    with pytest.raises(neurarch.InvalidInput, match="<dict>"):
        neurarch.trace({"model_type": "gpt2", "n_embd": float("nan")})
    with pytest.raises(neurarch.InvalidInput, match="not representable"):
        neurarch.trace({"model_type": "gpt2", "torch_dtype": object()})
