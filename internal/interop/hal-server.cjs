// A small bookshop API whose HAL documents are built by the halson library
// (NODE_PATH names where it is installed); this file only routes requests and
// holds the data. Listens on 127.0.0.1:$PORT.
const http = require('node:http');
const halson = require('halson');

const authors = {
  1: { id: 1, name: 'Ursula K. Le Guin' },
  2: { id: 2, name: 'Stanisław Lem' },
};
const books = {
  1: { id: 1, title: 'The Dispossessed', year: 1974, author: 1 },
  2: { id: 2, title: 'The Left Hand of Darkness', year: 1969, author: 1 },
  3: { id: 3, title: 'Solaris', year: 1961, author: 2 },
  4: { id: 4, title: 'The Cyberiad', year: 1965, author: 2 },
};
const pageSize = 2;

function authorResource(a) {
  return halson({ id: a.id, name: a.name })
    .addLink('self', `/authors/${a.id}`)
    .addLink('books', { href: `/books{?author}`, templated: true });
}

function bookResource(b) {
  return halson({ id: b.id, title: b.title, year: b.year })
    .addLink('self', `/books/${b.id}`)
    .addLink('author', { href: `/authors/${b.author}`, title: authors[b.author].name })
    .addLink('collection', '/books');
}

function root() {
  return halson({ name: 'bookshop' })
    .addLink('self', '/')
    .addLink('books', '/books')
    .addLink('authors', '/authors')
    .addLink('book', { href: '/books/{id}', templated: true });
}

function bookPage(page, author) {
  let all = Object.values(books);
  if (author) all = all.filter((b) => String(b.author) === author);
  const last = Math.max(1, Math.ceil(all.length / pageSize));
  const query = (p) => `/books?page=${p}` + (author ? `&author=${author}` : '');
  const res = halson({ total: all.length, page })
    .addLink('self', query(page))
    .addLink('first', query(1))
    .addLink('last', query(last))
    .addEmbed('books', all.slice((page - 1) * pageSize, page * pageSize).map(bookResource));
  if (page > 1) res.addLink('prev', query(page - 1));
  if (page < last) res.addLink('next', query(page + 1));
  return res;
}

function authorList() {
  return halson({ total: Object.keys(authors).length })
    .addLink('self', '/authors')
    .addEmbed('authors', Object.values(authors).map(authorResource));
}

function route(method, url) {
  if (method !== 'GET' && method !== 'HEAD') return { status: 405 };
  const path = url.pathname;
  if (path === '/') return { body: root() };
  if (path === '/authors') return { body: authorList() };
  if (path === '/books') {
    const page = Number(url.searchParams.get('page') || '1');
    if (!Number.isInteger(page) || page < 1) return { status: 400 };
    return { body: bookPage(page, url.searchParams.get('author')) };
  }
  let m = path.match(/^\/books\/(\d+)$/);
  if (m && books[m[1]]) return { body: bookResource(books[m[1]]) };
  m = path.match(/^\/authors\/(\d+)$/);
  if (m && authors[m[1]]) return { body: authorResource(authors[m[1]]) };
  return { status: 404 };
}

const server = http.createServer((req, res) => {
  const { status = 200, body } = route(req.method, new URL(req.url, 'http://localhost'));
  if (!body) {
    const headers = { 'Content-Type': 'text/plain' };
    if (status === 405) headers.Allow = 'GET, HEAD';
    res.writeHead(status, headers);
    res.end(`${http.STATUS_CODES[status]}\n`);
    return;
  }
  res.writeHead(status, { 'Content-Type': 'application/hal+json' });
  res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
});
server.listen(Number(process.env.PORT), '127.0.0.1');
