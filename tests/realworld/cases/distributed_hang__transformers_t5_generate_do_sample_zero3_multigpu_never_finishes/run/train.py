from transformers import T5ForConditionalGeneration, AutoTokenizer
from torch.optim import Adam
import deepspeed

def main(args):

    tokenizer = AutoTokenizer.from_pretrained("t5-large")
    model = T5ForConditionalGeneration.from_pretrained("t5-large")

    optimizer = Adam(model.parameters(), lr=0.00001)

    engine, optimizer, _, _ = deepspeed.initialize(
                                            model=model, 
                                            optimizer=optimizer,
                                            args=args
                                            )


    prompt = ["local_rank for distributed training on gpus", 
              "local_rank for distributed training on gpus" ]

    tokenizer.padding_side = 'left'
    prompts = tokenizer(
        prompt,
        padding='longest',
        truncation=True,
        max_length=1024,
        return_tensors="pt"
    ).to(f"cuda:{args.local_rank}")
    tokenizer.padding_side = 'right'
    print(prompts)

    gen = engine.generate(
                prompts.input_ids,
                max_length=128,
                do_sample=True
                )

    print(gen)
    print("FINISH")

if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description="r
[...]
