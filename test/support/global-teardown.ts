export default async function globalTeardown(): Promise<void> {
  const services = ((globalThis as Record<string, unknown>).__localServices ?? []) as Array<{ stop(): Promise<void> }>;
  await Promise.all(services.map((service) => service.stop()));
}
