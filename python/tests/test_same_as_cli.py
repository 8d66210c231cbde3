"""The binding is the command line's core: the same bytes for every bundled model and option."""
import neurarch
import pytest

from conftest import catalogue_files, catalogue_id

MODELS = [catalogue_id(p) for p in catalogue_files()]


def test_the_bundled_catalogue_is_the_data_folder():
    assert MODELS, "data/catalogue/ is empty"
    assert sorted(neurarch.catalogue()) == sorted(MODELS)


@pytest.mark.parametrize("model", MODELS)
def test_json_equals_the_cli_for_every_bundled_model(cli, model):
    run = cli(model, "--format", "json")
    if run.returncode == 0:
        assert neurarch.trace(model).to_json() == run.stdout
    else:
        with pytest.raises(neurarch.Error) as raised:
            neurarch.trace(model)
        assert raised.value.exit_code == run.returncode
        assert run.stderr == f"neurarch-trace: error: {raised.value}\n"


@pytest.mark.parametrize("model", MODELS)
def test_planned_json_equals_the_cli_for_every_bundled_model(cli, model):
    run = cli(model, "--plan", "--format", "json")
    if run.returncode != 0:
        with pytest.raises(neurarch.Error) as raised:
            neurarch.trace(model, plan=True)
        assert raised.value.exit_code == run.returncode
        assert run.stderr == f"neurarch-trace: error: {raised.value}\n"
        return
    assert neurarch.trace(model, plan=True).to_json() == run.stdout
    # Planning a traced report is tracing with --plan.
    assert neurarch.trace(model).plan().to_json() == run.stdout


def test_every_planner_option_maps_to_its_flag(cli):
    options = dict(batch=4, attention="eager", optimizer="adamw-fused", grad_checkpointing=True, lora_rank=8,
                   lora_dropout=0.1, lora_targets=["q_proj", "v_proj"], qlora=True, no_autocast=True,
                   card="A100-80GB", epochs=3, global_batch=64, samples=1000)
    flags = ["--batch", "4", "--attention", "eager", "--optimizer", "adamw-fused", "--grad-checkpointing",
             "--lora-rank", "8", "--lora-dropout", "0.1", "--lora-targets", "q_proj,v_proj", "--qlora",
             "--no-autocast", "--card", "A100-80GB", "--epochs", "3", "--global-batch", "64", "--samples", "1000"]
    run = cli("TinyLlama/TinyLlama-1.1B-Chat-v1.0", "--plan", "--seq", "512", "--format", "json", *flags)
    assert run.returncode == 0, run.stderr
    traced = neurarch.trace("TinyLlama/TinyLlama-1.1B-Chat-v1.0", seq=512, **options)
    assert traced.to_json() == run.stdout
    planned = neurarch.trace("TinyLlama/TinyLlama-1.1B-Chat-v1.0", seq=512).plan(**options)
    assert planned.to_json() == run.stdout
    assert planned.training_plan["lora"]["mode"] == "qlora"
    # A comma-separated string is the command line's spelling, and accepted too.
    assert neurarch.trace("TinyLlama/TinyLlama-1.1B-Chat-v1.0", seq=512,
                          **{**options, "lora_targets": "q_proj,v_proj"}).to_json() == run.stdout


def test_trace_options_map_to_their_flags(cli):
    run = cli("facebook/dinov2-small", "--image-size", "224", "--class", "Dinov2Model", "--format", "json")
    assert run.returncode == 0, run.stderr
    assert neurarch.trace("facebook/dinov2-small", image_size=224, class_name="Dinov2Model").to_json() == run.stdout


def test_markdown_and_text_are_the_cli_renderers(cli):
    model = "facebook/dinov2-small"
    report = neurarch.trace(model)
    assert report._repr_markdown_() == cli(model, "--format", "markdown").stdout
    assert report.to_text() == cli(model).stdout
    assert str(report) == cli(model).stdout
    assert report.to_text(tensors=True) == cli(model, "--tensors").stdout
    planned = report.plan(card="H100-80GB")
    assert planned.to_markdown() == cli(model, "--plan", "--card", "H100-80GB", "--format", "markdown").stdout


def test_installed_command_is_the_cli(cli, tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).parent / "neurarch-trace"
    assert script.exists(), "the wheel did not install the neurarch-trace command"
    for args in (["gpt2", "--plan", "--format", "json"], ["--list-model-types"], ["no-such-org/no-such-model"]):
        ours = subprocess.run([str(script), *args], capture_output=True, text=True, timeout=120)
        reference = cli(*args)
        assert (ours.returncode, ours.stdout, ours.stderr) == (reference.returncode, reference.stdout, reference.stderr)
    # `-` reads standard input, and -o writes atomically, as the native command does.
    config = (Path(__file__).resolve().parents[2] / "data" / "catalogue" / "gpt2.json").read_text()
    out = tmp_path / "report.json"
    ours = subprocess.run([str(script), "-", "--format", "json", "-o", str(out)], input=config,
                          capture_output=True, text=True, timeout=120)
    assert ours.returncode == 0, ours.stderr
    assert out.read_text() == cli("-", "--format", "json", stdin=config).stdout
    module = subprocess.run([sys.executable, "-m", "neurarch", "gpt2", "--format", "json"], capture_output=True,
                            text=True, timeout=120)
    assert module.stdout == cli("gpt2", "--format", "json").stdout


def test_supported_model_types_are_the_cli_list(cli):
    assert neurarch.supported_model_types() == cli("--list-model-types").stdout.split()


def test_versions_agree():
    from importlib.metadata import version

    assert neurarch.__version__ == version("neurarch-trace")


def test_notebook_html_is_the_servers_page_fragment():
    report = neurarch.trace("facebook/dinov2-small", plan=True)
    html = report._repr_html_()
    assert html.startswith("<style>")
    assert '<article class="neurarch">' in html
    # The same headline the markdown twin gives, so the two displays agree.
    assert "22,056,576" in html and "22,056,576" in report._repr_markdown_()


@pytest.mark.parametrize("model", ["facebook/dinov2-small", "t5-base"])
def test_diagram_equals_the_cli_svg_and_shows_in_jupyter(cli, model):
    run = cli(model, "--plan", "--format", "svg")
    assert run.returncode == 0, run.stderr
    report = neurarch.trace(model, plan=True)
    svg = report.diagram()
    assert svg == run.stdout
    assert svg.startswith("<svg ") and svg._repr_svg_() == svg
    # The notebook's HTML view carries the same picture in its "See it" section.
    assert 'id="see-it"' in report._repr_html_() and svg.strip() in report._repr_html_()
