// gpt-tokenizer's .tiktoken rank files, imported as Text modules (wrangler.toml [[rules]]): their text.
declare module "*.tiktoken" {
  const text: string;
  export default text;
}
