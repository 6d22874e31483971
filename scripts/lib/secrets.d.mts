export type SecretName = "JWT_SECRET" | "ENCRYPTION_KEY" | "BOOTSTRAP_SECRET";
export const SECRET_MAKERS: Record<SecretName, () => string>;
export function generateSecrets<N extends SecretName = SecretName>(names?: N[]): Record<N, string>;
export function printSecretsOnFailure(label: string, secrets: Record<string, string>): void;
