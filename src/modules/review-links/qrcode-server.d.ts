// The Node entry of the `qrcode` package has the same API as its typed main entry.
declare module "qrcode/lib/server.js" {
  import QRCode from "qrcode";
  export default QRCode;
}
