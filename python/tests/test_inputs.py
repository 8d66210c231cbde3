"""Every way a Python user holds a model: an id, a path, a dict, a PretrainedConfig, standard input."""
import io
import json
import pathlib

import neurarch
import pytest

from conftest import REPO, without_provenance

GPT2 = REPO / "data" / "catalogue" / "gpt2.json"
DINOV2 = REPO / "data" / "catalogue" / "facebook--dinov2-small.json"

# Keys every transformers PretrainedConfig.to_dict() adds whatever the model (transformers 4.x
# configuration_utils.py); none describes the architecture, so none may change a report.
PRETRAINED_CONFIG_NOISE = {
    "return_dict": True, "output_hidden_states": False, "output_attentions": False, "torchscript": False,
    "use_bfloat16": False, "tf_legacy_loss": False, "pruned_heads": {}, "chunk_size_feed_forward": 0,
    "is_encoder_decoder": False, "is_decoder": False, "cross_attention_hidden_size": None,
    "add_cross_attention": False, "tie_encoder_decoder": False, "max_length": 20, "min_length": 0,
    "do_sample": False, "early_stopping": False, "num_beams": 1, "num_beam_groups": 1, "diversity_penalty": 0.0,
    "temperature": 1.0, "top_k": 50, "top_p": 1.0, "typical_p": 1.0, "repetition_penalty": 1.0,
    "length_penalty": 1.0, "no_repeat_ngram_size": 0, "encoder_no_repeat_ngram_size": 0, "bad_words_ids": None,
    "num_return_sequences": 1, "output_scores": False, "return_dict_in_generate": False,
    "forced_bos_token_id": None, "forced_eos_token_id": None, "remove_invalid_values": False,
    "exponential_decay_length_penalty": None, "suppress_tokens": None, "begin_suppress_tokens": None,
    "finetuning_task": None, "id2label": {0: "LABEL_0", 1: "LABEL_1"}, "label2id": {"LABEL_0": 0, "LABEL_1": 1},
    "tokenizer_class": None, "prefix": None, "sep_token_id": None, "decoder_start_token_id": None,
    "task_specific_params": None, "problem_type": None, "transformers_version": "4.44.2",
}


class FakePretrainedConfig:
    """What the binding relies on from transformers: to_dict() with the config's keys and the noise."""

    def __init__(self, config, name):
        self._config, self._name = config, name

    def to_dict(self):
        return {**PRETRAINED_CONFIG_NOISE, **self._config, "_name_or_path": self._name}


@pytest.mark.parametrize("path", [GPT2, DINOV2])
def test_a_dict_traces_as_its_file(path):
    config = json.loads(path.read_text())
    from_file = neurarch.trace(str(path), plan=True)
    from_dict = neurarch.trace(config, plan=True)
    assert without_provenance(from_dict.to_dict()) == without_provenance(from_file.to_dict())
    assert from_dict.model["source"] == "python"
    assert from_dict.model["config"] == "<dict>"


@pytest.mark.parametrize("path", [GPT2, DINOV2])
def test_anything_with_to_dict_traces_as_its_file(path):
    config = json.loads(path.read_text())
    report = without_provenance(neurarch.trace(FakePretrainedConfig(config, "org/fine-tuned")).to_dict())
    from_file = without_provenance(neurarch.trace(str(path)).to_dict())
    # A key to_dict() spells out (add_cross_attention) is read "from config" instead of "default":
    # provenance only, the value is the same.
    values = lambda reads: [(r["key"], r["value"]) for r in reads]  # noqa: E731
    assert values(report.pop("config_reads")) == values(from_file.pop("config_reads"))
    assert report == from_file
    report = neurarch.trace(FakePretrainedConfig(config, "org/fine-tuned"))
    assert report.model["id"] == "org/fine-tuned"
    assert report.model["config"] == "<FakePretrainedConfig.to_dict()>"


def test_a_pathlike_is_a_path():
    assert neurarch.trace(pathlib.Path(GPT2)).to_json() == neurarch.trace(str(GPT2)).to_json()
    assert neurarch.trace(GPT2.parent / "gpt2.json").model["source"] == "path"


def test_dash_reads_standard_input(monkeypatch, cli):
    text = GPT2.read_text()
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert neurarch.trace("-").to_json() == cli("-", "--format", "json", stdin=text).stdout


def test_an_id_with_a_revision_and_options_of_the_trace():
    report = neurarch.trace("gpt2", seq=128, no_checkpoint=True, offline=True)
    assert report.layers[0]["output_shape"] == [128]


def test_properties_are_parts_of_the_json():
    report = neurarch.trace("facebook/dinov2-small")
    data = json.loads(report.to_json())
    assert report.tensors == data["tensors"] and report.tensors
    assert report.layers == data["layers"] and report.layers
    assert report.findings == data["findings"]
    assert report.parameters["derived"] == 22056576
    assert report.forward_pass["ok"] is True
    assert report.training_plan is None
    assert report.plan().training_plan["full"]["mode"] == "full"
    assert repr(report) == f"<neurarch.Report facebook/dinov2-small (Dinov2Model): 22,056,576 parameters, " \
                           f"{data['layer_count']} layers>"


def test_plan_leaves_the_traced_report_alone():
    report = neurarch.trace("gpt2")
    before = report.to_json()
    planned = report.plan(batch=2)
    assert report.to_json() == before
    assert planned.training_plan["full"]["batch"] == 2
