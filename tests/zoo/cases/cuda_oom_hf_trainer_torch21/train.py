"""Fine-tune a causal LM on our support tickets with the HF Trainer."""
from datasets import load_from_disk
from transformers import (AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling, Trainer,
                          TrainingArguments)

MODEL = "EleutherAI/pythia-1.4b"


def main():
    tok = AutoTokenizer.from_pretrained(MODEL)
    tok.pad_token = tok.eos_token
    ds = load_from_disk("data/tickets_tokenized_2048")
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    args = TrainingArguments(
        output_dir="output",
        per_device_train_batch_size=16,
        gradient_accumulation_steps=1,
        learning_rate=2e-5,
        num_train_epochs=3,
        logging_steps=10,
        bf16=True,
        gradient_checkpointing=False,
        report_to="none",
    )
    trainer = Trainer(model=model, args=args, train_dataset=ds["train"], tokenizer=tok,
                      data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
    trainer.train()


if __name__ == "__main__":
    main()
