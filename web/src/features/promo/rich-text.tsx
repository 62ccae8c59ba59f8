// The promo texts (FAQ answers, legal clauses) are data; a block is either a paragraph or a bulleted list,
// which is all the structure those texts need.
export type RichBlock = string | { readonly list: readonly string[] };

interface RichTextProps {
  blocks: readonly RichBlock[];
  className?: string;
}

export function RichText({ blocks, className }: RichTextProps) {
  return (
    <div className={className}>
      {blocks.map((block, index) =>
        typeof block === 'string' ? (
          <p key={index}>{block}</p>
        ) : (
          <ul key={index}>
            {block.list.map((item) => (
              <li key={item}>{item}</li>
            ))}
          </ul>
        ),
      )}
    </div>
  );
}
