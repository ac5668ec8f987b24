import fc from 'fast-check';
import { CODE_PLACEHOLDER } from '../../../lib/messages/messages';
import { renderEmail } from '../../../lib/messages/render-email';
import { base, codeArbitrary, htmlEscapeOracle, messageArbitrary, validationError } from '../../support/rendering';

describe('renderEmail', () => {
  it('renders the whole default email in en-US', () => {
    // Act
    const email = renderEmail(base);

    // Assert
    expect(email.subject).toBe('Your Acme sign-in code');
    expect(email.text).toBe(
      'Use this code to sign in to Acme:\n\n012345\n\nIt expires in 5 minutes.\n\n' +
        "If you didn't request this code, you can safely ignore this email. Don't share it with anyone.\n",
    );
    expect(email.html).toBe(
      [
        '<!DOCTYPE html>',
        '<html lang="en-US">',
        '<head>',
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<title>Your Acme sign-in code</title>',
        '</head>',
        `<body style="margin:0;padding:24px;background-color:#f4f4f5;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#18181b;">`,
        '<div style="max-width:480px;margin:0 auto;padding:32px;background-color:#ffffff;border-radius:8px;">',
        '<p style="margin:0 0 16px;font-size:16px;line-height:24px;">Use this code to sign in to Acme:</p>',
        '<p style="margin:0 0 16px;font-family:Menlo,Consolas,monospace;font-size:32px;line-height:40px;font-weight:700;letter-spacing:8px;">012345</p>',
        '<p style="margin:0 0 16px;font-size:16px;line-height:24px;">It expires in 5 minutes.</p>',
        '<p style="margin:0;font-size:13px;line-height:20px;color:#71717a;">If you didn&#39;t request this code, you can safely ignore this email. Don&#39;t share it with anyone.</p>',
        '</div>',
        '</body>',
        '</html>',
        '',
      ].join('\n'),
    );
  });

  it('escapes a hostile caller message in HTML and keeps it verbatim in the text part', () => {
    // Arrange
    const message = `<script>alert("x")</script> & 'q' %code%\nline two %code%`;

    // Act
    const email = renderEmail({ ...base, message });

    // Assert
    expect(email.subject).toBe('Your Acme sign-in code');
    expect(email.text).toBe(`<script>alert("x")</script> & 'q' 012345\nline two 012345`);
    expect(email.html).not.toContain('<script');
    const code = '<strong style="font-family:Menlo,Consolas,monospace;font-size:18px;letter-spacing:2px;">012345</strong>';
    expect(email.html).toContain(
      `<p style="margin:0 0 16px;font-size:16px;line-height:24px;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39; ${code}<br>line two ${code}</p>`,
    );
  });

  it('turns every kind of line break into <br>', () => {
    const html = renderEmail({ ...base, message: 'a\r\nb\rc\nd %code%' }).html;
    expect(html).toContain('>a<br>b<br>c<br>d <strong');
  });

  it('escapes the service name in the subject, title and body', () => {
    // Arrange
    const serviceName = `<img src=x onerror="alert('x')"> & Co`;

    // Act
    const email = renderEmail({ ...base, serviceName });

    // Assert
    expect(email.subject).toBe(`Your ${serviceName} sign-in code`);
    expect(email.html).not.toContain('<img');
    expect(email.html).toContain('<title>Your &lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt; &amp; Co sign-in code</title>');
    expect(email.html).toContain('>Use this code to sign in to &lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt; &amp; Co:</p>');
  });

  it('keeps leading zeros', () => {
    const email = renderEmail({ ...base, code: '000123' });
    expect(email.text).toContain('\n000123\n');
    expect(email.html).toContain('>000123</p>');
  });

  it('shows the caller message escaped, whatever it contains (property)', () => {
    fc.assert(
      fc.property(messageArbitrary(), codeArbitrary(), (message, code) => {
        fc.pre(validationError(message, 'email') === undefined);
        const html = renderEmail({ ...base, code, message }).html;
        const strong = `<strong style="font-family:Menlo,Consolas,monospace;font-size:18px;letter-spacing:2px;">${code}</strong>`;
        const expected = message
          .split(CODE_PLACEHOLDER)
          .map((part) => htmlEscapeOracle(part).replace(/\r\n|\r|\n/g, '<br>'))
          .join(strong);
        expect(html).toContain(`<p style="margin:0 0 16px;font-size:16px;line-height:24px;">${expected}</p>\n</div>`);
        expect(expected.replaceAll('<br>', '').replaceAll(strong, '')).not.toMatch(/[<>"']/);
      }),
      { numRuns: 300 },
    );
  });
});
