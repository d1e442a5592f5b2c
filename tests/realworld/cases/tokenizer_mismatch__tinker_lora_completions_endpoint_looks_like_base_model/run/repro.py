import os
import tinker
from openai import OpenAI
from tinker import types as tt
from transformers import AutoTokenizer

BASE_MODEL = "deepseek-ai/DeepSeek-V3.1"
CKPT = "tinker://341deca9-bc3d-52f9-afb4-9df799a8de5f:train:0/sampler_weights/final"
OAI_BASE_URL = "https://tin[...]
