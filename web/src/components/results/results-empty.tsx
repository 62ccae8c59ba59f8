/** "No Results Found..." with the reason it may be so. */
export function ResultsEmpty({ children }: { children: React.ReactNode }) {
  return (
    <div className="results-empty card" role="status">
      <svg width="72" height="72" viewBox="0 0 72 72" aria-hidden="true">
        <circle cx="31" cy="31" r="20" fill="none" stroke="#94a3b8" strokeWidth="5" />
        <path d="M46 46l16 16" stroke="#94a3b8" strokeWidth="6" strokeLinecap="round" />
      </svg>
      <h2 className="results-empty__title">No Results Found...</h2>
      {children}
    </div>
  );
}
