// THE table: model_type -> family. Adding a family is one file in this folder, one line here and
// one test file under tests/families/.
#include <algorithm>
#include <array>

#include "families/family.hpp"
#include "families/listing.hpp"

namespace neurarch::families {

const Family& dinov2_family();
// encoder families (declarations)
const Family& bert_family();
const Family& roberta_family();
const Family& xlm_roberta_family();
const Family& distilbert_family();
const Family& camembert_family();
const Family& data2vec_text_family();
const Family& roberta_prelayernorm_family();
const Family& xlm_roberta_xl_family();
const Family& ernie_family();
const Family& megatron_bert_family();
const Family& bert_generation_family();
const Family& nezha_family();
const Family& layoutlm_family();
const Family& splinter_family();
const Family& electra_family();
const Family& dpr_family();
const Family& big_bird_family();
const Family& yoso_family();
const Family& nystromformer_family();
const Family& mra_family();
const Family& roc_bert_family();
const Family& xmod_family();
const Family& tapas_family();
// decoder families (declarations)
const Family& openai_gpt_family();
const Family& bloom_family();
const Family& gpt_neox_family();
const Family& gpt_neo_family();
const Family& codegen_family();
const Family& gptj_family();
const Family& gpt_bigcode_family();
const Family& stablelm_family();
const Family& phi_family();
const Family& persimmon_family();
const Family& diffllama_family();
const Family& bitnet_family();
const Family& cohere2_family();
const Family& cohere_family();
const Family& nemotron_family();
const Family& exaone4_family();
const Family& olmo3_family();
const Family& olmo2_family();
const Family& olmo_family();
const Family& vaultgemma_family();
const Family& gemma2_family();
const Family& gemma_family();
const Family& starcoder2_family();
const Family& phi3_family();
const Family& glm4_family();
const Family& glm_family();
const Family& granite_family();
const Family& ernie4_5_family();
const Family& seed_oss_family();
const Family& arcee_family();
const Family& open_llama_family();
const Family& smollm3_family();
const Family& helium_family();
const Family& qwen3_family();
const Family& gpt2_family();
const Family& llama_family();
const Family& mistral_family();
const Family& qwen2_family();
// mixture-of-experts and state-space decoders (declarations)
const Family& mixtral_family();
const Family& qwen2_moe_family();
const Family& qwen3_moe_family();
const Family& olmoe_family();
const Family& granitemoe_family();
const Family& phimoe_family();
const Family& deepseek_v2_family();
const Family& deepseek_v3_family();
const Family& mamba_family();
const Family& falcon_mamba_family();
const Family& mamba2_family();
const Family& dbrx_family();
const Family& jetmoe_family();
//   (end of MoE/SSM declarations)
// encoder-decoder and speech families (declarations)
const Family& t5_family();
const Family& mt5_family();
const Family& umt5_family();
const Family& bart_family();
const Family& mbart_family();
const Family& pegasus_family();
const Family& marian_family();
const Family& m2m_100_family();
const Family& whisper_family();
const Family& wav2vec2_family();
const Family& hubert_family();
//   (end of encoder-decoder declarations)
// decoders II and encoders II (declarations)
const Family& gemma3_text_family();
const Family& falcon_family();
const Family& opt_family();
const Family& deberta_v2_family();
const Family& deberta_family();
const Family& albert_family();
const Family& mpnet_family();
const Family& mobilebert_family();
const Family& modernbert_family();
const Family& funnel_family();
//   (end of encoders II declarations)
// vision and multimodal II (declarations)
const Family& clip_family();
const Family& clip_vision_model_family();
const Family& clip_text_model_family();
const Family& siglip_family();
const Family& siglip_vision_model_family();
const Family& llava_family();
const Family& resnet_family();
const Family& convnext_family();
const Family& swin_family();
const Family& segformer_family();
const Family& mobilevit_family();
//   (end of vision II declarations)
// BLIP-family multimodal (declarations)
const Family& blip_family();
const Family& blip_2_family();
const Family& blip_2_qformer_family();
const Family& instructblip_family();
const Family& instructblipvideo_family();
//   (end of blip declarations)
// detection transformers (declarations)
const Family& conditional_detr_family();
const Family& detr_family();
const Family& table_transformer_family();
//   (end of detr declarations)
// SigLIP-tower multimodal (gemma3, paligemma, siglip2) (declarations)
const Family& gemma3_family();
const Family& paligemma_family();
const Family& shieldgemma2_family();
const Family& siglip2_family();
const Family& siglip2_vision_model_family();
//   (end of siglipvlm declarations)
// LLaVA-style and Qwen-VL multimodal (declarations)
const Family& llava_next_family();
const Family& llava_next_video_family();
const Family& vipllava_family();
const Family& llava_onevision_family();
const Family& qwen2_vl_family();
const Family& qwen2_vl_text_family();
const Family& qwen2_5_vl_family();
const Family& qwen2_5_vl_text_family();
const Family& pixtral_family();
const Family& mistral3_family();
//   (end of llavavlm declarations)
// decoders III (declarations)
const Family& gpt_oss_family();
const Family& mpt_family();
const Family& llama4_text_family();
const Family& glm4_moe_family();
const Family& ernie4_5_moe_family();
const Family& granitemoeshared_family();
const Family& flex_olmo_family();
const Family& xglm_family();
const Family& biogpt_family();
const Family& lfm2_family();
//   (end of dec3 declarations)
// encoder-decoders II (declarations)
const Family& longt5_family();
const Family& switch_transformers_family();
const Family& led_family();
const Family& blenderbot_family();
const Family& blenderbot_small_family();
const Family& plbart_family();
const Family& mvp_family();
const Family& nllb_moe_family();
//   (end of encdec2 declarations)
// speech II (wav2vec2 descendants) (declarations)
const Family& wav2vec2_conformer_family();
const Family& wav2vec2_bert_family();
const Family& data2vec_audio_family();
const Family& unispeech_family();
const Family& unispeech_sat_family();
const Family& wavlm_family();
const Family& sew_family();
const Family& sew_d_family();
//   (end of speech2 declarations)
// encoders III (declarations)
const Family& esm_family();
const Family& longformer_family();
const Family& roformer_family();
const Family& rembert_family();
const Family& convbert_family();
const Family& squeezebert_family();
const Family& ibert_family();
const Family& xlm_family();
const Family& flaubert_family();
const Family& luke_family();
//   (end of enc3 declarations)
// vision III (convolutional, hierarchical, video) (declarations)
const Family& convnextv2_family();
const Family& dinov3_convnext_family();
const Family& swinv2_family();
const Family& videomae_family();
const Family& vivit_family();
const Family& timesformer_family();
const Family& bit_family();
const Family& vit_hybrid_family();
const Family& regnet_family();
const Family& efficientnet_family();
const Family& mobilenet_v2_family();
const Family& mobilenet_v1_family();
const Family& poolformer_family();
const Family& pvt_v2_family();
const Family& pvt_family();
const Family& van_family();
const Family& levit_family();
const Family& cvt_family();
const Family& focalnet_family();
const Family& hiera_family();
//   (end of vis3 declarations)
// decoders IV (hybrid and recurrent) (declarations)
const Family& apertus_family();
const Family& modernbert_decoder_family();
const Family& ctrl_family();
const Family& doge_family();
const Family& aria_text_family();
const Family& jamba_family();
const Family& bamba_family();
const Family& falcon_h1_family();
const Family& zamba_family();
//   (end of dec4 declarations)
// Idefics/SmolVLM, InternVL, GLM-4V multimodal (declarations)
const Family& idefics3_vision_family();
const Family& smolvlm_vision_family();
const Family& idefics2_family();
const Family& internvl_vision_family();
const Family& internvl_family();
const Family& glm4v_text_family();
const Family& glm4v_family();
const Family& lfm2_vl_family();
//   (end of vlm3 declarations)
// encoder-decoders III (declarations)
const Family& t5gemma_family();
const Family& speech_to_text_family();
const Family& fsmt_family();
const Family& pegasus_x_family();
const Family& bigbird_pegasus_family();
const Family& trocr_family();
const Family& prophetnet_family();
const Family& xlm_prophetnet_family();
//   (end of encdec3 declarations)
// encoders IV (document and character) (declarations)
const Family& layoutlmv3_family();
const Family& markuplm_family();
const Family& lilt_family();
const Family& bros_family();
//   (end of enc4 declarations)
// CLIP variants (declarations)
const Family& chinese_clip_family();
const Family& chinese_clip_vision_model_family();
const Family& metaclip_2_family();
const Family& altclip_family();
const Family& aimv2_vision_model_family();
const Family& aimv2_family();
const Family& owlvit_family();
const Family& owlv2_family();
const Family& align_family();
const Family& clipseg_family();
//   (end of clip2 declarations)
// dense prediction and efficient vision (declarations)
const Family& dpt_family();
const Family& depth_anything_family();
const Family& vitdet_family();
const Family& upernet_family();
const Family& mobilevitv2_family();
//   (end of dense declarations)
// vision-language IV (declarations)
const Family& git_family();
const Family& vilt_family();
const Family& visual_bert_family();
const Family& fuyu_family();
const Family& kosmos_2_family();
const Family& pix2struct_family();
//   (end of vlm4 declarations)
// vision families (declarations)
const Family& vit_family();
const Family& deit_family();
const Family& vit_msn_family();
const Family& ijepa_family();
const Family& vit_mae_family();
const Family& dinov2_with_registers_family();
const Family& dinov3_vit_family();
const Family& yolos_family();
const Family& vitpose_backbone_family();
const Family& beit_family();
const Family& data2vec_vision_family();
// composites and the types still missing (declarations)
const Family& encoder_decoder_family();
const Family& vision_encoder_decoder_family();
const Family& speech_encoder_decoder_family();
const Family& llama4_family();
const Family& donut_swin_family();
const Family& xlnet_family();
const Family& sam_vision_model_family();
const Family& sam_hq_vision_model_family();
const Family& sam_family();
const Family& vision_text_dual_encoder_family();
const Family& timm_wrapper_family();
const Family& timm_backbone_family();
const Family& canine_family();
const Family& patchtst_family();
const Family& patchtsmixer_family();
const Family& time_series_transformer_family();
const Family& informer_family();
const Family& autoformer_family();
//   (end of covb declarations)

namespace {

struct RegistryRow {
  std::string_view model_type;
  const Family& (*family)();
};

// clang-format off
const RegistryRow kRegistry[] = {
    {"dinov2",                 dinov2_family},
    // encoder families (rows)
    {"bert",                   bert_family},
    {"roberta",                roberta_family},
    {"xlm-roberta",            xlm_roberta_family},
    {"distilbert",             distilbert_family},
    {"camembert",              camembert_family},
    {"data2vec-text",          data2vec_text_family},
    {"roberta-prelayernorm",   roberta_prelayernorm_family},
    {"xlm-roberta-xl",         xlm_roberta_xl_family},
    {"ernie",                  ernie_family},
    {"megatron-bert",          megatron_bert_family},
    {"bert-generation",        bert_generation_family},
    {"nezha",                  nezha_family},
    {"layoutlm",               layoutlm_family},
    {"splinter",               splinter_family},
    {"electra",                electra_family},
    {"dpr",                    dpr_family},
    {"big_bird",               big_bird_family},
    {"yoso",                   yoso_family},
    {"nystromformer",          nystromformer_family},
    {"mra",                    mra_family},
    {"roc_bert",               roc_bert_family},
    {"xmod",                   xmod_family},
    {"tapas",                  tapas_family},
    // decoder families (rows)
    {"gpt2",                   gpt2_family},
    {"llama",                  llama_family},
    {"code_llama",             llama_family},
    {"mistral",                mistral_family},
    {"qwen2",                  qwen2_family},
    {"qwen3",                  qwen3_family},
    {"helium",                 helium_family},
    {"smollm3",                smollm3_family},
    {"open-llama",             open_llama_family},
    {"arcee",                  arcee_family},
    {"seed_oss",               seed_oss_family},
    {"ernie4_5",               ernie4_5_family},
    {"granite",                granite_family},
    {"glm",                    glm_family},
    {"glm4",                   glm4_family},
    {"phi3",                   phi3_family},
    {"starcoder2",             starcoder2_family},
    {"gemma",                  gemma_family},
    {"gemma2",                 gemma2_family},
    {"vaultgemma",             vaultgemma_family},
    {"olmo",                   olmo_family},
    {"olmo2",                  olmo2_family},
    {"olmo3",                  olmo3_family},
    {"exaone4",                exaone4_family},
    {"nemotron",               nemotron_family},
    {"cohere",                 cohere_family},
    {"cohere2",                cohere2_family},
    {"bitnet",                 bitnet_family},
    {"diffllama",              diffllama_family},
    {"persimmon",              persimmon_family},
    {"phi",                    phi_family},
    {"stablelm",               stablelm_family},
    {"gpt_bigcode",            gpt_bigcode_family},
    {"gptj",                   gptj_family},
    {"codegen",                codegen_family},
    {"gpt_neo",                gpt_neo_family},
    {"gpt_neox",               gpt_neox_family},
    {"bloom",                  bloom_family},
    {"openai-gpt",             openai_gpt_family},
    // mixture-of-experts and state-space decoders (rows)
    {"mixtral",                mixtral_family},
    {"qwen2_moe",              qwen2_moe_family},
    {"qwen3_moe",              qwen3_moe_family},
    {"olmoe",                  olmoe_family},
    {"granitemoe",             granitemoe_family},
    {"phimoe",                 phimoe_family},
    {"deepseek_v2",            deepseek_v2_family},
    {"deepseek_v3",            deepseek_v3_family},
    {"mamba",                  mamba_family},
    {"falcon_mamba",           falcon_mamba_family},
    {"mamba2",                 mamba2_family},
    {"dbrx",                   dbrx_family},
    {"jetmoe",                 jetmoe_family},
    //   (end of MoE/SSM rows)
    // encoder-decoder and speech families (rows)
    {"t5",                     t5_family},
    {"mt5",                    mt5_family},
    {"umt5",                   umt5_family},
    {"bart",                   bart_family},
    {"mbart",                  mbart_family},
    {"pegasus",                pegasus_family},
    {"marian",                 marian_family},
    {"m2m_100",                m2m_100_family},
    {"whisper",                whisper_family},
    {"wav2vec2",               wav2vec2_family},
    {"hubert",                 hubert_family},
    //   (end of encoder-decoder rows)
    // decoders II and encoders II (rows)
    {"gemma3_text",            gemma3_text_family},
    {"falcon",                 falcon_family},
    {"opt",                    opt_family},
    {"deberta-v2",             deberta_v2_family},
    {"deberta",                deberta_family},
    {"albert",                 albert_family},
    {"mpnet",                  mpnet_family},
    {"mobilebert",             mobilebert_family},
    {"modernbert",             modernbert_family},
    {"funnel",                 funnel_family},
    //   (end of encoders II rows)
    // vision and multimodal II (rows)
    {"clip",                   clip_family},
    {"clip_vision_model",      clip_vision_model_family},
    {"clip_text_model",        clip_text_model_family},
    {"siglip",                 siglip_family},
    {"siglip_vision_model",    siglip_vision_model_family},
    {"llava",                  llava_family},
    {"resnet",                 resnet_family},
    {"convnext",               convnext_family},
    {"swin",                   swin_family},
    {"segformer",              segformer_family},
    {"mobilevit",              mobilevit_family},
    //   (end of vision II rows)
    // BLIP-family multimodal (rows)
    {"blip",                   blip_family},
    {"blip-2",                 blip_2_family},
    {"blip_2_qformer",         blip_2_qformer_family},
    {"instructblip",           instructblip_family},
    {"instructblipvideo",      instructblipvideo_family},
    //   (end of blip rows)
    // detection transformers (rows)
    {"conditional_detr",       conditional_detr_family},
    {"detr",                   detr_family},
    {"table-transformer",      table_transformer_family},
    //   (end of detr rows)
    // SigLIP-tower multimodal (gemma3, paligemma, siglip2) (rows)
    {"gemma3",                 gemma3_family},
    {"paligemma",              paligemma_family},
    {"shieldgemma2",           shieldgemma2_family},
    {"siglip2",                siglip2_family},
    {"siglip2_vision_model",   siglip2_vision_model_family},
    //   (end of siglipvlm rows)
    // LLaVA-style and Qwen-VL multimodal (rows)
    {"llava_next",             llava_next_family},
    {"llava_next_video",       llava_next_video_family},
    {"vipllava",               vipllava_family},
    {"llava_onevision",        llava_onevision_family},
    {"qwen2_vl",               qwen2_vl_family},
    {"qwen2_vl_text",          qwen2_vl_text_family},
    {"qwen2_5_vl",             qwen2_5_vl_family},
    {"qwen2_5_vl_text",        qwen2_5_vl_text_family},
    {"pixtral",                pixtral_family},
    {"mistral3",               mistral3_family},
    //   (end of llavavlm rows)
    // decoders III (rows)
    {"gpt_oss",                gpt_oss_family},
    {"mpt",                    mpt_family},
    {"llama4_text",            llama4_text_family},
    {"glm4_moe",               glm4_moe_family},
    {"ernie4_5_moe",           ernie4_5_moe_family},
    {"granitemoeshared",       granitemoeshared_family},
    {"flex_olmo",              flex_olmo_family},
    {"xglm",                   xglm_family},
    {"biogpt",                 biogpt_family},
    {"lfm2",                   lfm2_family},
    //   (end of dec3 rows)
    // encoder-decoders II (rows)
    {"longt5",                 longt5_family},
    {"switch_transformers",    switch_transformers_family},
    {"led",                    led_family},
    {"blenderbot",             blenderbot_family},
    {"blenderbot-small",       blenderbot_small_family},
    {"plbart",                 plbart_family},
    {"mvp",                    mvp_family},
    {"nllb-moe",               nllb_moe_family},
    //   (end of encdec2 rows)
    // speech II (wav2vec2 descendants) (rows)
    {"wav2vec2-conformer",     wav2vec2_conformer_family},
    {"wav2vec2-bert",          wav2vec2_bert_family},
    {"data2vec-audio",         data2vec_audio_family},
    {"unispeech",              unispeech_family},
    {"unispeech-sat",          unispeech_sat_family},
    {"wavlm",                  wavlm_family},
    {"sew",                    sew_family},
    {"sew-d",                  sew_d_family},
    //   (end of speech2 rows)
    // encoders III (rows)
    {"esm",                    esm_family},
    {"longformer",             longformer_family},
    {"roformer",               roformer_family},
    {"rembert",                rembert_family},
    {"convbert",               convbert_family},
    {"squeezebert",            squeezebert_family},
    {"ibert",                  ibert_family},
    {"xlm",                    xlm_family},
    {"flaubert",               flaubert_family},
    {"luke",                   luke_family},
    //   (end of enc3 rows)
    // vision III (convolutional, hierarchical, video) (rows)
    {"convnextv2",             convnextv2_family},
    {"dinov3_convnext",        dinov3_convnext_family},
    {"swinv2",                 swinv2_family},
    {"videomae",               videomae_family},
    {"vivit",                  vivit_family},
    {"timesformer",            timesformer_family},
    {"bit",                    bit_family},
    {"vit-hybrid",             vit_hybrid_family},
    {"regnet",                 regnet_family},
    {"efficientnet",           efficientnet_family},
    {"mobilenet_v2",           mobilenet_v2_family},
    {"mobilenet_v1",           mobilenet_v1_family},
    {"poolformer",             poolformer_family},
    {"pvt_v2",                 pvt_v2_family},
    {"pvt",                    pvt_family},
    {"van",                    van_family},
    {"levit",                  levit_family},
    {"cvt",                    cvt_family},
    {"focalnet",               focalnet_family},
    {"hiera",                  hiera_family},
    //   (end of vis3 rows)
    // decoders IV (hybrid and recurrent) (rows)
    {"apertus",                apertus_family},
    {"modernbert-decoder",     modernbert_decoder_family},
    {"gpt-sw3",                gpt2_family},
    {"ctrl",                   ctrl_family},
    {"doge",                   doge_family},
    {"aria_text",              aria_text_family},
    {"jamba",                  jamba_family},
    {"bamba",                  bamba_family},
    {"falcon_h1",              falcon_h1_family},
    {"zamba",                  zamba_family},
    //   (end of dec4 rows)
    // Idefics/SmolVLM, InternVL, GLM-4V multimodal (rows)
    {"idefics3_vision",        idefics3_vision_family},
    {"smolvlm_vision",         smolvlm_vision_family},
    {"idefics2",               idefics2_family},
    {"internvl_vision",        internvl_vision_family},
    {"internvl",               internvl_family},
    {"glm4v_text",             glm4v_text_family},
    {"glm4v",                  glm4v_family},
    {"lfm2-vl",                lfm2_vl_family},
    //   (end of vlm3 rows)
    // encoder-decoders III (rows)
    {"t5gemma",                t5gemma_family},
    {"speech_to_text",         speech_to_text_family},
    {"fsmt",                   fsmt_family},
    {"pegasus_x",              pegasus_x_family},
    {"bigbird_pegasus",        bigbird_pegasus_family},
    {"trocr",                  trocr_family},
    {"prophetnet",             prophetnet_family},
    {"xlm-prophetnet",         xlm_prophetnet_family},
    //   (end of encdec3 rows)
    // encoders IV (document and character) (rows)
    {"layoutlmv3",             layoutlmv3_family},
    {"markuplm",               markuplm_family},
    {"lilt",                   lilt_family},
    {"bros",                   bros_family},
    //   (end of enc4 rows)
    // CLIP variants (rows)
    {"chinese_clip",              chinese_clip_family},
    {"chinese_clip_vision_model", chinese_clip_vision_model_family},
    {"metaclip_2",                metaclip_2_family},
    {"altclip",                   altclip_family},
    {"aimv2_vision_model",        aimv2_vision_model_family},
    {"aimv2",                     aimv2_family},
    {"owlvit",                    owlvit_family},
    {"owlv2",                     owlv2_family},
    {"align",                     align_family},
    {"clipseg",                   clipseg_family},
    //   (end of clip2 rows)
    // dense prediction and efficient vision (rows)
    {"dpt",                    dpt_family},
    {"depth_anything",         depth_anything_family},
    {"vitdet",                 vitdet_family},
    {"upernet",                upernet_family},
    {"mobilevitv2",            mobilevitv2_family},
    //   (end of dense rows)
    // vision-language IV (rows)
    {"git",                    git_family},
    {"vilt",                   vilt_family},
    {"visual_bert",            visual_bert_family},
    {"fuyu",                   fuyu_family},
    {"kosmos-2",               kosmos_2_family},
    {"pix2struct",             pix2struct_family},
    //   (end of vlm4 rows)
    // vision families (rows)
    {"vit",                    vit_family},
    {"deit",                   deit_family},
    {"vit_msn",                vit_msn_family},
    {"ijepa",                  ijepa_family},
    {"vit_mae",                vit_mae_family},
    {"dinov2_with_registers",  dinov2_with_registers_family},
    {"dinov3_vit",             dinov3_vit_family},
    {"yolos",                  yolos_family},
    {"vitpose_backbone",       vitpose_backbone_family},
    {"beit",                   beit_family},
    {"data2vec-vision",        data2vec_vision_family},
    // composites and the types still missing (rows)
    {"encoder-decoder",        encoder_decoder_family},
    {"vision-encoder-decoder", vision_encoder_decoder_family},
    {"speech-encoder-decoder", speech_encoder_decoder_family},
    {"llama4",                 llama4_family},
    {"donut-swin",             donut_swin_family},
    {"xlnet",                  xlnet_family},
    {"sam_vision_model",       sam_vision_model_family},
    {"sam_hq_vision_model",    sam_hq_vision_model_family},
    {"sam",                    sam_family},
    {"vision-text-dual-encoder", vision_text_dual_encoder_family},
    {"timm_wrapper",           timm_wrapper_family},
    {"timm_backbone",          timm_backbone_family},
    {"canine",                 canine_family},
    {"patchtst",               patchtst_family},
    {"patchtsmixer",           patchtsmixer_family},
    {"time_series_transformer", time_series_transformer_family},
    {"informer",               informer_family},
    {"autoformer",             autoformer_family},
    // Nougat's checkpoints are VisionEncoderDecoderModels (Donut's Swin + mBART); the type names its processor.
    {"nougat",                 vision_encoder_decoder_family},
    //   (end of covb rows)
};
// clang-format on

}  // namespace

const Family* find_family(std::string_view model_type) {
  for (const auto& row : kRegistry)
    if (row.model_type == model_type) return &row.family();
  return nullptr;
}

std::vector<std::string> supported_model_types() {
  std::vector<std::string> out;
  for (const auto& row : kRegistry) out.emplace_back(row.model_type);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<ArchitectureListing> supported_architectures() {
  std::vector<ArchitectureListing> out;
  for (const auto& row : kRegistry) {
    const Family& f = row.family();
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& a) { return a.family == f.id; });
    if (it == out.end()) {
      ArchitectureListing listing{std::string(f.id), std::string(f.reference), {}, {}};
      for (const auto& c : f.classes) listing.classes.emplace_back(c.name);
      out.push_back(std::move(listing));
      it = std::prev(out.end());
    }
    it->model_types.emplace_back(row.model_type);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.family < b.family; });
  return out;
}

std::string model_type_for_class(std::string_view class_name) {
  for (const auto& row : kRegistry)
    for (const auto& c : row.family().classes)
      if (c.name == class_name) return std::string(row.model_type);
  return {};
}

}  // namespace neurarch::families
