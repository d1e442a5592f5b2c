// base model Qwen/Qwen2.5-Coder-0.5B, DPO with ~3000 (prompt, chosen=correct completion, rejected=wrong completion) pairs
// output before DPO:
        @Override
        public void configure() throws Exception {
            from("direct:hello")
                .to("mock:hello");
        }
    };
}<|endoftext|>
// output after DPO:
public void configure() throws Exception {
<|fim_middle|>
<|fim_middle|>
<|fim_middle|><|endoftext|>
