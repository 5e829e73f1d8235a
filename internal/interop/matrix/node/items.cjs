// What the matrix's Node servers share: the items they serve, and the port
// matrix.sh gives in PORT. Every server listens on 127.0.0.1 only.
const items = [
  { id: "1", name: "Blue Train", price: 56.99 },
  { id: "2", name: "Jeru", price: 17.99 },
  { id: "3", name: "Sarah Vaughan and Clifford Brown", price: 39.99 },
];

module.exports = {
  items,
  find: (id) => items.find((item) => item.id === id),
  port: Number(process.env.PORT),
  host: "127.0.0.1",
};
