declare module "*.pem?raw" {
  const content: string;
  export default content;
}
