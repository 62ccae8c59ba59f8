/** An honest placeholder body for a page whose feature is not built yet, inside its real layout. */
export function ComingSoon({ title, description }: { title: string; description: string }) {
  return (
    <section className="container page">
      <h1 className="page__title">{title}</h1>
      <div className="card coming-soon">
        <p className="coming-soon__badge">Coming soon</p>
        <p>{description}</p>
      </div>
    </section>
  );
}
