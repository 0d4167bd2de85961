import ReactMarkdown from 'react-markdown';

/**
 * Markdown from the model (an AskUser context), rendered without raw HTML
 * (react-markdown's default) and with links that leave nothing behind: no
 * images are fetched, so the page asks no host but the server.
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        skipHtml
        components={{
          img: ({ alt }) => (
            <span>{alt === undefined || alt === '' ? '[image]' : `[image: ${alt}]`}</span>
          ),
          a: ({ children, href }) => (
            <a href={href} target="_blank" rel="noreferrer noopener">
              {children}
            </a>
          ),
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
